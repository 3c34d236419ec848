/**
 * Environment hygiene shared by every provider: the inherited environment is scrubbed of
 * credential-shaped names and of the managed `DSH_*` namespace; explicit entries then win.
 */

/**
 * Names that look like credentials (case-insensitive substring match). Inherited variables
 * matching it never reach a child; an explicit `env` entry still can, since it is a decision.
 */
export const SENSITIVE_ENV_PATTERN = /KEY|PASSWORD|PASSWD|SECRET|TOKEN|CREDENTIAL|AUTH|COOKIE|PRIVATE/i;

/** The managed namespace: inherited `DSH_*` facts may be stale, so only explicit entries carry them. */
export const MANAGED_ENV_PATTERN = /^DSH_/i;

/** True when an inherited variable named `name` must not reach a child. */
export function isScrubbedEnvName(name: string): boolean {
  return SENSITIVE_ENV_PATTERN.test(name) || MANAGED_ENV_PATTERN.test(name);
}

/**
 * The parent environment without credential-shaped and `DSH_*` names.
 * @param parent the environment to scrub. @default process.env
 */
export function scrubbedParentEnv(parent: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(parent)) {
    if (value !== undefined && !isScrubbedEnvName(name)) out[name] = value;
  }
  return out;
}

/**
 * `explicit` merged over `base`: a string entry sets the name, `undefined` removes it (a tombstone).
 * Neither input is modified.
 */
export function mergeEnv(
  base: Readonly<Record<string, string>>,
  explicit: Readonly<Record<string, string | undefined>>,
): Record<string, string> {
  const out: Record<string, string> = { ...base };
  for (const [name, value] of Object.entries(explicit)) {
    if (value === undefined) delete out[name];
    else out[name] = value;
  }
  return out;
}

/** The environment a child gets: the scrubbed parent with `explicit` merged over it. */
export function childEnv(
  explicit: Readonly<Record<string, string | undefined>>,
  parent: NodeJS.ProcessEnv = process.env,
): Record<string, string> {
  return mergeEnv(scrubbedParentEnv(parent), explicit);
}
