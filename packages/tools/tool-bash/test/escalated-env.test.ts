/**
 * An approved escalation runs outside the fence with nothing a confined command could have
 * planted: no BASH_ENV, ENV, LD_PRELOAD…, and no PATH entry inside the writable roots.
 */
import { describe, expect, it } from 'vitest';
import { ESCALATION_DROPPED_ENV, escalatedEnv, trustedPath } from '../src/escalated-env.js';

describe('escalated environment', () => {
  it('drops PATH entries inside the writable roots and relative ones', () => {
    expect(trustedPath('/ws/bin:/usr/bin:.::/ws/node_modules/.bin:/bin', ['/ws'])).toBe('/usr/bin:/bin');
    expect(trustedPath('/usr/bin:/bin', ['/ws'])).toBeNull();
    expect(trustedPath('/wsx/bin:/usr/bin', ['/ws'])).toBeNull(); // a sibling of a root is not inside it
  });

  it('tombstones the variables that make a shell or the loader run code', () => {
    const env = escalatedEnv(['/ws'], '/ws/bin:/usr/bin');
    for (const name of ['BASH_ENV', 'ENV', 'LD_PRELOAD', 'LD_LIBRARY_PATH']) {
      expect(ESCALATION_DROPPED_ENV).toContain(name);
      expect(name in env && env[name] === undefined).toBe(true);
    }
    expect(env.PATH).toBe('/usr/bin');
  });
});
