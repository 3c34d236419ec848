/**
 * Environment hygiene shared by every provider: the inherited environment is scrubbed of
 * credentials — by name (credential-shaped names, credential suffixes) and by value (a URL that
 * carries a password, a well-known token format) — and of the managed `DSH_*` namespace;
 * explicit entries then win, since they are a decision.
 */

/**
 * Names that look like credentials (case-insensitive substring match). Inherited variables
 * matching it never reach a child; an explicit `env` entry still can, since it is a decision.
 */
export const SENSITIVE_ENV_PATTERN = /KEY|PASSWORD|PASSWD|SECRET|TOKEN|CREDENTIAL|AUTH|COOKIE|PRIVATE/i;

/**
 * Credential suffixes the substrings miss (`GH_PAT`, `MYSQL_PWD`, `DOCKER_PASS`, `SENTRY_DSN`,
 * `SLACK_WEBHOOK_URL`, `AWS_CREDS`…): each only after an underscore, at the end of the name, so
 * `PWD`, `OLDPWD`, `PATH` and `BYPASS`-like words stay.
 */
export const SENSITIVE_ENV_SUFFIX_PATTERN =
  /_(?:PAT|PWD|PW|PASS|PASSPHRASE|PSK|DSN|WEBHOOK|WEBHOOK_URL|CREDS|SALT|CONNECTION_STRING)$/i;

/**
 * A value holding a URL whose userinfo has a password field — `scheme://user:pass@host`,
 * `scheme://:pass@host` — whatever the name (`DATABASE_URL`, `REDIS_URL`, `HTTPS_PROXY`…): the
 * userinfo is everything between `://` and the first `/`, `?` or `#`, up to its last `@`. A URL
 * with only a user (`https://user@host`) or only a port (`https://host:8080/x@y`) does not match.
 * (The first colon is matched without backtracking, so a long value costs linear time.)
 */
export const CREDENTIAL_URL_PATTERN = /:\/\/[^/?#:]*:[^/?#]*@/;

/**
 * A value that is a well-known token format, whatever the name: GitHub (`ghp_`, `gho_`, `ghu_`,
 * `ghs_`, `ghr_`, `github_pat_`), GitLab (`glpat-`), Slack (`xoxb-`…), npm (`npm_`), an AWS access
 * key id (`AKIA…`, `ASIA…`), Stripe secret keys (`sk_live_`, `rk_live_`), and a PEM private key.
 */
export const CREDENTIAL_VALUE_PATTERN =
  /^\s*(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_\w{30,}|glpat-[\w-]{20,}|xox[abposr]-[\w-]{10,}|npm_[A-Za-z0-9]{30,}|(?:AKIA|ASIA)[0-9A-Z]{16}|[sr]k_live_\w{20,})\s*$|-----BEGIN [A-Z ]{0,40}PRIVATE KEY-----/;

/** The managed namespace: inherited `DSH_*` facts may be stale, so only explicit entries carry them. */
export const MANAGED_ENV_PATTERN = /^DSH_/i;

/** True when an inherited variable named `name` must not reach a child, whatever its value. */
export function isScrubbedEnvName(name: string): boolean {
  return SENSITIVE_ENV_PATTERN.test(name) || SENSITIVE_ENV_SUFFIX_PATTERN.test(name) || MANAGED_ENV_PATTERN.test(name);
}

/** True when an inherited value carries a credential, whatever its name. */
export function isScrubbedEnvValue(value: string): boolean {
  return CREDENTIAL_URL_PATTERN.test(value) || CREDENTIAL_VALUE_PATTERN.test(value);
}

/** True when the inherited variable `name=value` must not reach a child (by its name or its value). */
export function isScrubbedEnvEntry(name: string, value: string): boolean {
  return isScrubbedEnvName(name) || isScrubbedEnvValue(value);
}

/**
 * The parent environment without credential-shaped names, credential-carrying values and
 * `DSH_*` names ({@link isScrubbedEnvEntry}).
 * @param parent the environment to scrub. @default process.env
 */
export function scrubbedParentEnv(parent: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(parent)) {
    if (value !== undefined && !isScrubbedEnvEntry(name, value)) out[name] = value;
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
