/**
 * The JSON Schema (draft 2020-12) of the config file: `compose()`'s `config` keys as JSON can
 * hold them (no `approver`: it is a function). `dsh config schema` prints it; a file may name it
 * in `$schema`. A test keeps its keys the same as `CONFIG_KEYS` and their sections.
 */

const path = { type: 'string', minLength: 1 } as const;
const absolute = { type: 'string', pattern: '^(/|~/)' } as const;
const positive = { type: 'integer', minimum: 1 } as const;
const nonNegative = { type: 'integer', minimum: 0 } as const;
const strings = { type: 'array', items: { type: 'string', minLength: 1 } } as const;

/** An object of exactly these properties. */
function object(properties: Record<string, unknown>, required: string[] = []): Record<string, unknown> {
  return { type: 'object', properties, additionalProperties: false, ...(required.length ? { required } : {}) };
}

/** The schema's `$id`. */
export const CONFIG_SCHEMA_ID = 'https://dsh.dev/schema/config.json';

/** The JSON Schema of a dsh config file. */
export const CONFIG_SCHEMA: Record<string, unknown> = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: CONFIG_SCHEMA_ID,
  title: 'dsh config file',
  ...object({
    $schema: { type: 'string' },
    workspace: path,
    sandbox: object({
      mode: { enum: ['read-only', 'workspace-write', 'danger-full-access'] },
      network: {
        anyOf: [
          { type: 'boolean' },
          object(
            {
              allow: strings,
              deny: strings,
              allowPrivate: { type: 'boolean' },
              pin: { type: 'object', additionalProperties: { type: 'string', pattern: ':[0-9]{1,5}$' } },
            },
            ['allow'],
          ),
        ],
      },
      bwrapPath: { type: 'string', pattern: '^/' },
      denyRead: { type: 'array', items: absolute },
      allowWrite: strings,
      limits: object({
        pids: { anyOf: [positive, { type: 'null' }] },
        memoryBytes: { anyOf: [positive, { type: 'null' }] },
      }),
      tmpBytes: positive,
      privateHome: { type: 'boolean' },
    }),
    shell: object({
      timeoutMs: positive,
      maxTimeoutMs: positive,
      maxOutputBytes: positive,
      spillDir: absolute,
      maxSpillBytes: nonNegative,
      graceMs: nonNegative,
    }),
    jobs: object({
      maxRunningPerOwner: positive,
      maxQueuedPerOwner: nonNegative,
      retainCount: nonNegative,
      retainMs: nonNegative,
    }),
    subprocess: object({ containment: { enum: ['auto', 'strict', 'session'] } }),
    sessionLog: object({ dir: absolute }, ['dir']),
    output: object({ dir: absolute, keep: { type: 'boolean' }, maxBytes: nonNegative }),
    world: {
      oneOf: [
        object({ kind: { const: 'local' } }, ['kind']),
        object(
          {
            kind: { const: 'remote' },
            connect: { type: 'array', items: { type: 'string' }, minItems: 1 },
            node: path,
            joinsArgv: { type: 'boolean' },
          },
          ['kind', 'connect'],
        ),
      ],
    },
    acp: object(
      {
        agents: {
          type: 'object',
          additionalProperties: object(
            {
              command: { type: 'array', items: { type: 'string' }, minItems: 1 },
              env: { type: 'object', additionalProperties: { type: 'string' } },
              description: { type: 'string' },
              shareTools: { type: 'boolean' },
              mcpServers: {
                type: 'array',
                items: object(
                  {
                    name: { type: 'string', minLength: 1 },
                    command: { type: 'array', items: { type: 'string' }, minItems: 1 },
                    env: { type: 'object', additionalProperties: { type: 'string' } },
                  },
                  ['name', 'command'],
                ),
              },
            },
            ['command'],
          ),
        },
      },
      ['agents'],
    ),
    lsp: object({
      servers: {
        type: 'object',
        additionalProperties: object(
          {
            command: { type: 'array', items: { type: 'string', minLength: 1 }, minItems: 1 },
            extensions: {
              type: 'object',
              propertyNames: { pattern: '^\\.[^./\\s]+$' },
              additionalProperties: { type: 'string', minLength: 1 },
              minProperties: 1,
            },
            rootMarkers: strings,
            initializationOptions: { type: 'object' },
          },
          ['command', 'extensions'],
        ),
      },
    }),
  }),
};
