/**
 * Owners: the identity every owner-scoped service (jobs, terminals) authorizes against.
 * An owner is an opaque object minted by {@link createOwner}; services compare the object
 * itself, never its name, so a guessed or repeated name grants nothing.
 */

const OWNER = Symbol('dsh.owner');

/** An agent (or other principal) that owns jobs and terminals. Compare by identity. */
export interface Owner {
  /** Display name; not an identity. */
  readonly name: string;
  readonly [OWNER]: true;
}

/** Mints a new owner. Two calls with the same name give two different owners. */
export function createOwner(name: string): Owner {
  return Object.freeze({ name, [OWNER]: true as const });
}

/** True when `value` is an owner minted by {@link createOwner}. */
export function isOwner(value: unknown): value is Owner {
  return typeof value === 'object' && value !== null && (value as { [OWNER]?: unknown })[OWNER] === true;
}
