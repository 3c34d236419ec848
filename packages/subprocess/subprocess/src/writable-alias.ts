/**
 * Directories this process writes through a descriptor instead of their path. In a sandbox world
 * the composition's output directories are read-only to the commands (they cannot replace a
 * spill file the model will read), while the runtime server writes them through descriptors it
 * was started with (`/proc/self/fd/N`, which no command can open: the server is not dumpable).
 * Paths reported stay the real ones; only the writes take the alias.
 */

const aliases: { real: string; via: string }[] = [];

/** From now on, writes under `real` go through `via` (a directory path reaching the same directory). */
export function setWritableAlias(real: string, via: string): void {
  const at = aliases.findIndex((a) => a.real === real);
  if (at >= 0) aliases.splice(at, 1);
  aliases.push({ real, via });
  aliases.sort((a, b) => b.real.length - a.real.length); // the deepest directory wins
}

/** The path to write `path` through: its alias when it lies under an aliased directory, else itself. */
export function writablePath(path: string): string {
  for (const { real, via } of aliases) {
    if (path === real) return via;
    if (path.startsWith(`${real}/`)) return via + path.slice(real.length);
  }
  return path;
}
