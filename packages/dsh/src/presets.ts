/**
 * Presets: which plugins a composition mounts.
 */
import { bashLocalPlugin } from '@dsh/bash-local';
import { DshError, type Plugin } from '@dsh/core';
import { jobsPlugin } from '@dsh/jobs';
import { subprocessLocalPlugin } from '@dsh/subprocess-local';
import { toolBashPlugin } from '@dsh/tool-bash';
import type { ResolvedDshConfig } from './config.js';

/** Preset names of DESIGN §8. */
export const PRESETS = ['base', 'full', 'minimal'] as const;
export type PresetName = (typeof PRESETS)[number];

/** Presets that need packages this build does not have yet, and which issue brings them. */
const NOT_YET: Partial<Record<PresetName, string>> = {
  full: 'the terminal packages (ctx.terminals)',
  minimal: 'the persistent bash backend (terminal-bash)',
};

/**
 * The plugins of a preset, in mount order.
 * @throws DshError `INVALID_ARGUMENT` (unknown preset), `NOT_IMPLEMENTED` (a preset not built yet).
 */
export function presetPlugins(preset: PresetName, config: ResolvedDshConfig): Plugin[] {
  if (!PRESETS.includes(preset)) {
    throw new DshError('INVALID_ARGUMENT', `Unknown preset "${String(preset)}"; use one of ${PRESETS.join(', ')}.`, {
      data: { field: 'preset' },
    });
  }
  const missing = NOT_YET[preset];
  if (missing) {
    throw new DshError(
      'NOT_IMPLEMENTED',
      `Preset "${preset}" needs ${missing}, which this build does not include yet; use "base".`,
      {
        data: { preset },
      },
    );
  }
  return [
    subprocessLocalPlugin({ containment: config.subprocess.containment }),
    bashLocalPlugin({ ...config.shell, cwd: config.workspace }),
    jobsPlugin(config.jobs),
    toolBashPlugin({ workspace: config.workspace }),
  ];
}
