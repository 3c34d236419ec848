/**
 * `ptyrun.py`, written next to the suite's copy of dsh: runs a program on a fresh terminal of the
 * host's (its controlling terminal, as stdin and stderr; stdout to a file), then saves what was
 * pushed into that terminal's input queue meanwhile (the TIOCSTI row).
 */

/** Runs argv on a new terminal (its controlling one, as stdin and stderr; stdout to a file), then saves the terminal's pending input. */
export const PTYRUN_PY = `import fcntl, os, pty, select, sys, termios

pending_path, stdout_path, argv = sys.argv[1], sys.argv[2], sys.argv[3:]
master, slave = pty.openpty()
pid = os.fork()
if pid == 0:
    os.setsid()
    fcntl.ioctl(slave, termios.TIOCSCTTY, 0)
    out = os.open(stdout_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.dup2(slave, 0)
    os.dup2(out, 1)
    os.dup2(slave, 2)
    os.execvp(argv[0], argv)
status = 0
while True:
    readable, _, _ = select.select([master], [], [], 0.05)
    if readable:
        try:
            os.read(master, 65536)
        except OSError:
            pass
    done, status = os.waitpid(pid, os.WNOHANG)
    if done:
        break
attrs = termios.tcgetattr(slave)
attrs[3] &= ~termios.ICANON
attrs[6][termios.VMIN] = 0
attrs[6][termios.VTIME] = 0
termios.tcsetattr(slave, termios.TCSANOW, attrs)
try:
    pending = os.read(slave, 65536)
except OSError:
    pending = b''
with open(pending_path, 'wb') as f:
    f.write(pending)
sys.exit(os.waitstatus_to_exitcode(status) & 0xff)
`;
