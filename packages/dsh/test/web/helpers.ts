/**
 * Test helpers for `dsh web` and `dsh mcp --web`: the real CLI as a child process with a private
 * HOME and workspace, and Debian's chromium driven by playwright-core. Every browser and process
 * started here is ended after each test, and screenshots go to the test's temporary directory.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterEach } from 'vitest';
import { tempDir, waitFor } from '../../../../test/support.js';
import { BIN } from '../mcp/helpers.js';

/** Debian's chromium (`.ci/run` installs it); a missing browser fails the test. */
export const CHROMIUM = process.env.DSH_CHROMIUM ?? '/usr/bin/chromium';

/** A started `dsh web` (or `dsh mcp --web`) process. */
export interface Served {
  child: ChildProcess;
  /** The page's URL, token included. */
  url: string;
  home: string;
  workspace: string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stderr(): string;
}

const children: ChildProcess[] = [];
const browsers: Browser[] = [];
afterEach(async () => {
  await Promise.all(browsers.splice(0).map((b) => b.close().catch(() => undefined)));
  for (const child of children.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
});

/** Starts the CLI with `args`; resolves once it printed its page's URL (stdout for `web`, stderr for `mcp --web`). */
export async function serve(args: string[], stdio: 'pipe' | 'ignore' = 'ignore'): Promise<Served> {
  const home = tempDir('dsh-web-');
  const workspace = join(home, 'ws');
  mkdirSync(workspace);
  const child = spawn(process.execPath, [BIN, ...args, '--workspace', workspace], {
    env: { ...process.env, HOME: home },
    stdio: [stdio, 'pipe', 'pipe'],
  });
  children.push(child);
  let out = '';
  let err = '';
  child.stdout?.on('data', (d: Buffer) => {
    out += d.toString();
  });
  child.stderr?.on('data', (d: Buffer) => {
    err += d.toString();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const url = await waitFor(() => {
    if (child.exitCode !== null) throw new Error(`dsh exited early: ${err}`);
    return /(http:\/\/127\.0\.0\.1:\d+\/t\/[0-9a-f]+\/)/.exec(args[0] === 'mcp' ? err : out)?.[1];
  }, 'the page URL');
  return { child, url, home, workspace, exited, stderr: () => err };
}

/** A chromium page; `violations` collects what the Content-Security-Policy refused. */
export async function openPage(url: string): Promise<{ page: Page; violations: string[]; dir: string }> {
  if (!existsSync(CHROMIUM)) throw new Error(`no chromium at ${CHROMIUM}: apt-get install chromium`);
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  browsers.push(browser);
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  const violations: string[] = [];
  page.on('console', (m) => {
    if (/Content Security Policy|Refused to/i.test(m.text())) violations.push(m.text());
  });
  page.on('pageerror', (e) => violations.push(`page error: ${e.message}`));
  await page.goto(url);
  await page.waitForSelector('body[data-connected="true"]');
  return { page, violations, dir: tempDir('dsh-web-shots-') };
}

/** The text a terminal's screen shows on the page (the DOM renderer's rows). */
export function screenText(page: Page, id?: string): Promise<string> {
  const selector = id ? `[data-terminal-id="${id}"] .xterm-rows` : '[data-terminal-id] .xterm-rows';
  return page.$eval(selector, (e) => e.textContent ?? '');
}

/** Waits until the page's terminal screen (the first, or `id`) contains `text`. */
export async function waitForScreen(page: Page, text: string, id?: string): Promise<void> {
  await waitFor(async () => (await screenText(page, id).catch(() => '')).includes(text), `"${text}" on the screen`);
}

/** Screenshot `name` under `dir`. */
export async function shot(page: Page, dir: string, name: string): Promise<string> {
  const path = join(dir, `${name}.png`);
  await page.screenshot({ path });
  return path;
}
