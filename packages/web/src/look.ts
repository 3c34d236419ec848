/**
 * One look at the composition, shared by every page: the terminals and the jobs as listed, made
 * once per tick. An ended job's markers are parsed once (its result does not change); only the
 * markers go to the pages, never the whole rendered result.
 */
import type { Owner } from '@dsh/core';
import type { JobInfo, JobService } from '@dsh/jobs';
import { parseShellResult } from '@dsh/shell';
import type { TerminalInfo, TerminalService } from '@dsh/terminal';
import type { JobRow, TerminalRow } from './protocol.js';

/** What one look saw. */
export interface Look {
  terminals: Array<{ owner: Owner; info: TerminalInfo }>;
  terminalRows: TerminalRow[];
  /** `terminalRows` as JSON (pages compare it with what they were sent last). */
  terminalJson: string;
  jobs: Array<{ owner: Owner; info: JobInfo }>;
  jobRows: JobRow[];
  jobJson: string;
}

/** Makes looks; keeps the markers of ended jobs. */
export class Looker {
  private readonly markers = new Map<string, string[]>();

  look(terminals: TerminalService | undefined, jobs: JobService | undefined): Look {
    const t = terminals?.overview() ?? [];
    const terminalRows: TerminalRow[] = t.map(({ owner, info }) => ({
      id: info.id,
      name: info.name,
      owner: owner.name,
      state: info.state,
      busy: info.busy,
      foreground: info.foreground,
      exitCode: info.exitCode,
    }));
    const j = jobs?.overview() ?? [];
    const live = new Set<string>();
    const jobRows: JobRow[] = j.map(({ owner, info }) => {
      live.add(info.id);
      return { id: info.id, owner: owner.name, title: info.title, state: info.state, end: this.endOf(info) };
    });
    for (const id of this.markers.keys()) if (!live.has(id)) this.markers.delete(id);
    return {
      terminals: t,
      terminalRows,
      terminalJson: JSON.stringify(terminalRows),
      jobs: j,
      jobRows,
      jobJson: JSON.stringify(jobRows),
    };
  }

  private endOf(info: JobInfo): { markers: string[] } | null {
    if (!info.result) return null;
    let markers = this.markers.get(info.id);
    if (!markers) {
      markers = parseShellResult(info.result.text).markerLines;
      this.markers.set(info.id, markers);
    }
    return { markers };
  }
}
