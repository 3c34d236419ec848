/**
 * Resolves a model-given workdir against the workspace and checks it exists.
 */
import { statSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';

/** The absolute workdir, or a message telling the model what to do instead. */
export function resolveWorkdir(workspace: string, workdir: string | undefined): { dir: string } | { error: string } {
  const dir = workdir === undefined ? workspace : isAbsolute(workdir) ? resolve(workdir) : resolve(workspace, workdir);
  let isDir = false;
  try {
    isDir = statSync(dir).isDirectory();
  } catch {
    // reported below
  }
  if (!isDir) {
    return {
      error: `workdir "${workdir ?? dir}" is not an existing directory (resolved to ${dir}; relative paths start at the workspace ${workspace}). Use an existing directory, or create it first with mkdir -p.`,
    };
  }
  return { dir };
}
