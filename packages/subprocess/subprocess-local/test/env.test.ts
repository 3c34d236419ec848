import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runtime, spec } from './helpers.js';

const planted = {
  MY_API_KEY: 'k',
  GITHUB_TOKEN: 't',
  DB_PASSWORD: 'p',
  SMTP_PASSWD: 'p',
  APP_SECRET: 's',
  GOOGLE_CREDENTIALS: 'c',
  DSH_STALE_FACT: 'old',
  dsh_lower: 'old',
  DSH_PLAIN_SAFE_LOOKING: 'old',
  PLAIN_VISIBLE: 'visible',
};

async function childEnvOf(env: Record<string, string | undefined>): Promise<Record<string, string>> {
  const h = runtime().spawn(
    spec([process.execPath, '-e', 'process.stdout.write(JSON.stringify(process.env))'], { env }),
  );
  await h.done;
  return JSON.parse(h.stdoutReader?.read(0).text ?? '{}');
}

describe('child environment', () => {
  beforeEach(() => {
    Object.assign(process.env, planted);
  });
  afterEach(() => {
    for (const name of Object.keys(planted)) delete process.env[name];
  });

  it('drops credential-shaped and DSH_* parent variables, keeps the rest', async () => {
    const env = await childEnvOf({});
    for (const name of Object.keys(planted)) {
      if (name === 'PLAIN_VISIBLE') expect(env[name]).toBe('visible');
      else expect(env[name], name).toBeUndefined();
    }
    expect(env.PATH).toBe(process.env.PATH);
  });

  it('lets explicit entries through, including DSH_* and credential-shaped ones', async () => {
    const env = await childEnvOf({ DSH_JOB_ID: 'j1', MY_API_KEY: 'explicit', EXTRA: 'x' });
    expect(env.DSH_JOB_ID).toBe('j1');
    expect(env.MY_API_KEY).toBe('explicit');
    expect(env.EXTRA).toBe('x');
  });

  it('removes a name given as undefined (tombstone)', async () => {
    const env = await childEnvOf({ PLAIN_VISIBLE: undefined, HOME: undefined });
    expect('PLAIN_VISIBLE' in env).toBe(false);
    expect('HOME' in env).toBe(false);
  });

  it('reads the parent environment from the runtime option when given', async () => {
    const h = runtime({ parentEnv: { PATH: process.env.PATH, ONLY_THIS: '1', SOME_TOKEN: 'x' } }).spawn(
      spec([process.execPath, '-e', 'process.stdout.write(JSON.stringify(process.env))']),
    );
    await h.done;
    const env = JSON.parse(h.stdoutReader?.read(0).text ?? '{}');
    expect(env.ONLY_THIS).toBe('1');
    expect(env.SOME_TOKEN).toBeUndefined();
    expect(env.PLAIN_VISIBLE).toBeUndefined();
  });
});
