/**
 * The probe the suite writes next to its copy of dsh (readable by every user, and so inside
 * every world): `probe.py`, one raw syscall or resource attempt per subcommand (Python's ctypes:
 * no libseccomp or extra modules).
 *
 * The probe speaks the live protocol of live.ts through files in `$RT`: `ready` then waits for
 * `go` (the host attaches its tracer in between), `held` then waits for `done` (the host looks
 * at the probe's processes, fds and namespaces in between). It prints what the kernel answered,
 * but the suite never decides from that print: only from what the host sees.
 */

export const PROBE_PY = String.raw`import ctypes, errno, fcntl, os, struct, sys, termios, time

RT = os.environ.get('RT', '.')
LIBC = ctypes.CDLL(None, use_errno=True)
LIBC.syscall.restype = ctypes.c_long
NR = {
    'x86_64': dict(ptrace=101, process_vm_readv=310, bpf=321, perf_event_open=298, add_key=248, keyctl=250,
                   kexec_load=246, init_module=175, delete_module=176, userfaultfd=323, io_uring_setup=425,
                   reboot=169, acct=163, swapon=167, clone=56),
    'aarch64': dict(ptrace=117, process_vm_readv=270, bpf=280, perf_event_open=241, add_key=217, keyctl=219,
                    kexec_load=104, init_module=105, delete_module=106, userfaultfd=282, io_uring_setup=425,
                    reboot=142, acct=89, swapon=224, clone=220),
}[os.uname().machine]


def call(name, *args):
    ctypes.set_errno(0)
    r = LIBC.syscall(ctypes.c_long(NR[name]), *[ctypes.c_long(a) for a in args])
    e = ctypes.get_errno()
    print('%s: %d %s' % (name, r, errno.errorcode.get(e, str(e)) if r < 0 else 'ok'), flush=True)
    return r


def addr(data):
    buf = ctypes.create_string_buffer(data) if isinstance(data, bytes) else data
    KEEP.append(buf)
    return ctypes.addressof(buf)


KEEP = []


def wait_for(name, limit=25.0):
    end = time.time() + limit
    while time.time() < end:
        if os.path.exists(os.path.join(RT, name)):
            return True
        time.sleep(0.02)
    return False


def touch(name):
    open(os.path.join(RT, name), 'w').close()


def ready():
    touch('ready')
    wait_for('go')


def held():
    touch('held')
    wait_for('done')


def child_waiting():
    pid = os.fork()
    if pid == 0:
        wait_for('done')
        os._exit(0)
    return pid


def fd_kind(kind):
    if kind == 'bpf':
        attr = ctypes.create_string_buffer(128)
        struct.pack_into('IIII', attr, 0, 2, 4, 4, 1)  # BPF_MAP_TYPE_ARRAY, key 4, value 4, 1 entry
        r = call('bpf', 0, addr(attr), 128)  # BPF_MAP_CREATE
    elif kind == 'perf':
        attr = ctypes.create_string_buffer(128)
        # PERF_TYPE_SOFTWARE, PERF_ATTR_SIZE_VER0, PERF_COUNT_SW_CPU_CLOCK; disabled, exclude_kernel, exclude_hv
        struct.pack_into('IIQ', attr, 0, 1, 64, 0)
        struct.pack_into('Q', attr, 40, (1 << 0) | (1 << 5) | (1 << 6))
        r = call('perf_event_open', addr(attr), 0, -1, -1, 8)
    elif kind == 'userfaultfd':
        r = call('userfaultfd', 0o2000000 | 0o4000 | 1)  # O_CLOEXEC | O_NONBLOCK | UFFD_USER_MODE_ONLY
        if r < 0:
            r = call('userfaultfd', 0o2000000 | 0o4000)
    elif kind == 'io_uring':
        r = call('io_uring_setup', 4, addr(ctypes.create_string_buffer(120)))
    else:
        raise SystemExit('unknown fd kind ' + kind)
    if r >= 0:
        held()


def errno_kind(kind, tag):
    ready()
    if kind == 'kexec':
        call('kexec_load', 0, 0, 0, 0)
    elif kind == 'init_module':
        call('init_module', addr(bytes(64)), 64, addr(b''))
    elif kind == 'delete_module':
        call('delete_module', addr(b'dsh_rt_no_such_module'), 0o4000)
    elif kind == 'reboot':
        call('reboot', 0xfee1dead, 0, 0, 0)  # a wrong second magic: EINVAL once past the permission check
    elif kind == 'acct':
        call('acct', addr(b'/nonexistent/dsh-rt-acct'))
    elif kind == 'swapon':
        call('swapon', addr(b'/nonexistent/dsh-rt-swap'), 0)
    elif kind == 'keyctl':
        call('add_key', addr(b'user'), addr(tag.encode()), addr(b'x'), 1, -2)  # KEY_SPEC_PROCESS_KEYRING
        call('keyctl', 0, -2, 1)  # KEYCTL_GET_KEYRING_ID, create
    elif kind == 'process_vm_readv':
        secret = ctypes.create_string_buffer(b'dsh-rt-remote-16')
        pid = child_waiting()
        local = ctypes.create_string_buffer(16)
        liov = struct.pack('QQ', ctypes.addressof(local), 16)
        riov = struct.pack('QQ', ctypes.addressof(secret), 16)
        call('process_vm_readv', pid, addr(liov), 1, addr(riov), 1, 0)
        touch('done')
        os.waitpid(pid, 0)
    else:
        raise SystemExit('unknown errno kind ' + kind)


def ptrace_child():
    pid = child_waiting()
    if call('ptrace', 0x4206, pid, 0, 0) == 0:  # PTRACE_SEIZE
        held()
    os.kill(pid, 9)
    os.waitpid(pid, 0)


def clone_newuser():
    r = call('clone', 0x10000000 | 17, 0, 0, 0, 0)  # CLONE_NEWUSER | SIGCHLD
    if r == 0:
        held()
        os._exit(0)
    if r > 0:
        os.waitpid(r, 0)


def same_pidns(p):
    try:
        return os.readlink('/proc/%s/ns/pid' % p) == os.readlink('/proc/self/ns/pid')
    except OSError:
        return False


def tiocsti(text, scan):
    fds = [0, 1, 2]
    # scan: also every terminal another process of this world holds (only inside the fence: on
    # the host that would type into the person's terminals), and of its own pid namespace only.
    others = ['/proc/%s/fd/%s' % (p, f) for p in os.listdir('/proc') if p.isdigit() and same_pidns(p)
              for f in (os.listdir('/proc/%s/fd' % p) if os.access('/proc/%s/fd' % p, os.R_OK) else [])] if scan else []
    for path in ['/dev/tty'] + others:
        try:
            fd = os.open(path, os.O_RDWR | os.O_NOCTTY)
            if os.isatty(fd):
                fds.append(fd)
            else:
                os.close(fd)
        except OSError:
            pass
    pushed = 0
    for fd in fds:
        try:
            for ch in text:
                fcntl.ioctl(fd, termios.TIOCSTI, ch.encode())
            pushed += 1
        except OSError:
            pass
    print('tiocsti: pushed into %d of %d fds' % (pushed, len(fds)), flush=True)


def allocate(gib):
    import mmap
    chunks, size = [], 256 << 20
    try:
        for _ in range(gib * 4):
            m = mmap.mmap(-1, size)
            m[::4096] = b'\x01' * (size // 4096)  # touch every page
            chunks.append(m)
    except (MemoryError, OSError) as e:
        print('allocate: %s after %d MiB' % (e, len(chunks) * 256), flush=True)


def fill(path, gib):
    written = 0
    try:
        with open(path, 'wb', buffering=0) as f:
            block = b'\x01' * (16 << 20)
            while written < gib << 30:
                written += f.write(block)
    except OSError as e:
        print('fill: %s after %d MiB' % (errno.errorcode.get(e.errno, str(e.errno)), written >> 20), flush=True)
    held()


def add_key(desc):
    r = call('add_key', addr(b'user'), addr(desc.encode()), addr(b'x'), 1, -4)  # KEY_SPEC_USER_KEYRING
    if r > 0:
        call('keyctl', 15, r, 300)  # KEYCTL_SET_TIMEOUT: gone in 5 min whatever happens


def mount_tmpfs(target, source):
    LIBC.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_void_p]
    ctypes.set_errno(0)
    r = LIBC.mount(source.encode(), target.encode(), b'tmpfs', 0, None)
    print('mount: %d %s' % (r, errno.errorcode.get(ctypes.get_errno(), '') if r < 0 else 'ok'), flush=True)
    if r == 0:
        held()


what = sys.argv[1]
if what == 'ok':
    print('probe: ok', flush=True)
elif what == 'mount':
    mount_tmpfs(sys.argv[2], sys.argv[3])
elif what == 'addkey':
    add_key(sys.argv[2])
elif what == 'dropkey':
    call('keyctl', 21, int(sys.argv[2]))  # KEYCTL_INVALIDATE
elif what == 'fd':
    fd_kind(sys.argv[2])
elif what == 'errno':
    errno_kind(sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else 'dsh-rt')
elif what == 'ptrace':
    ptrace_child()
elif what == 'clone-newuser':
    clone_newuser()
elif what == 'hold':
    held()
elif what == 'tiocsti':
    tiocsti(sys.argv[2], len(sys.argv) > 3 and sys.argv[3] == 'scan')
elif what == 'allocate':
    allocate(int(sys.argv[2]))
elif what == 'fill':
    fill(sys.argv[2], int(sys.argv[3]))
else:
    raise SystemExit('unknown probe ' + what)
`;
