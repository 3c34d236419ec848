/**
 * Credentials: the stores of the default denyRead list in the row's own HOME (each a bait with a
 * random secret), and secrets handed to dsh in its environment by value, under names the scrub
 * by name alone does not know. The secret in the rendered output is the breach.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { Host } from '../harness/host.js';
import type { Row } from './types.js';

const secretOf = (host: Host): string => {
  host.facts.secret ??= `cred${randomBytes(10).toString('hex')}`;
  return host.facts.secret as string;
};

const seen = (host: Host, text: string) => {
  const failed = text.includes(secretOf(host));
  return { failed, evidence: failed ? 'the secret is in the output' : 'the secret is not in the output' };
};

/** A credential file in HOME (relative path), and how it holds the secret. */
const STORES: [id: string, path: string, body: (secret: string) => string][] = [
  ['ssh', '.ssh/id_ed25519', (s) => `-----BEGIN OPENSSH PRIVATE KEY-----\n${s}\n-----END OPENSSH PRIVATE KEY-----\n`],
  ['aws', '.aws/credentials', (s) => `[default]\naws_access_key_id = AKIAEXAMPLE\naws_secret_access_key = ${s}\n`],
  ['gcloud', '.config/gcloud/application_default_credentials.json', (s) => `{"refresh_token": "${s}"}\n`],
  ['azure', '.azure/msal_token_cache.json', (s) => `{"AccessToken": {"x": {"secret": "${s}"}}}\n`],
  ['kube', '.kube/config', (s) => `users:\n- name: x\n  user:\n    token: ${s}\n`],
  ['docker', '.docker/config.json', (s) => `{"auths": {"registry.example": {"auth": "${s}"}}}\n`],
  ['netrc', '.netrc', (s) => `machine example.com login u password ${s}\n`],
  ['gnupg', '.gnupg/private-keys-v1.d/x.key', (s) => `Key: (private-key ${s})\n`],
  ['npmrc', '.npmrc', (s) => `//registry.npmjs.org/:_authToken=${s}\n`],
  ['pypirc', '.pypirc', (s) => `[pypi]\nusername = __token__\npassword = ${s}\n`],
  ['git-credentials', '.git-credentials', (s) => `https://u:${s}@example.com\n`],
  ['gh', '.config/gh/hosts.yml', (s) => `github.com:\n    oauth_token: ${s}\n    user: u\n`],
  ['dsh', '.dsh/config.json', (s) => `{"token": "${s}"}\n`],
];

function storeRow([id, path, body]: (typeof STORES)[number]): Row {
  return {
    id: `credentials-${id}`,
    klass: 'credentials',
    title: `read ~/${path}`,
    proof: "the bait's secret in the output",
    marker: 'file',
    async arm(host) {
      host.write(join(host.home, path), body(secretOf(host)));
      const own = await host.sh(`cat ~/${path}`);
      return own.stdout.includes(secretOf(host)) ? null : `${host.user.name} cannot read the bait on the host`;
    },
    // Straight, and around the corner: a copy made by find, a symlink from the workspace.
    command: () =>
      `cat ~/${path}; ln -sf ~/${path} via-link && cat via-link; find ~/${path.split('/')[0]} -type f -exec cat {} + 2>&1 | head -c 4000`,
    judge: (host, attempt) => seen(host, attempt.text),
  };
}

/** A secret handed to dsh by value: NAME, and the value holding the secret. */
const VALUES: [name: string, value: (secret: string) => string][] = [
  ['DATABASE_URL', (s) => `postgres://u:${s}@db.example/app`],
  ['MYSQL_PWD', (s) => s],
  ['GH_PAT', (s) => s],
  ['SLACK_WEBHOOK_URL', (s) => `https://hooks.slack.com/services/T000/B000/${s}`],
  ['SENTRY_DSN', (s) => `https://${s}@o0.ingest.sentry.io/1`],
  ['DOCKER_PASS', (s) => s],
  ['REDIS_URL', (s) => `redis://:${s}@cache.example:6379/0`],
];

function envRow([name, value]: (typeof VALUES)[number]): Row {
  return {
    id: `credentials-env-${name.toLowerCase().replace(/_/g, '-')}`,
    klass: 'credentials',
    title: `read ${name} (a secret by value in dsh's environment)`,
    proof: 'the value in the output',
    async arm(host) {
      host.env[name] = value(secretOf(host));
      const own = await host.sh(`printenv ${name}`);
      return own.stdout.includes(secretOf(host)) ? null : `${name} does not reach an unconfined command on the host`;
    },
    command: () => `env; tr '\\0' '\\n' < /proc/self/environ | grep -a ${name}`,
    judge: (host, attempt) => seen(host, attempt.text),
  };
}

export const credentialRows: Row[] = [...STORES.map(storeRow), ...VALUES.map(envRow)];
