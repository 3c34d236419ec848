/**
 * What `dsh web` needs of a composition (a `Dsh` from `compose()` has all of it).
 */
import type { Ctx, Owner, ToolCallOptions, ToolInfo, ToolResult } from '@dsh/core';
import type {} from '@dsh/jobs';
import type {} from '@dsh/terminal';

/** A running composition, as the web page sees it. */
export interface WebHost {
  /** The services: ctx.terminals and ctx.jobs are shown when mounted. */
  readonly ctx: Ctx;
  /** Mints the identity the page acts as (its terminals and commands). */
  createAgent(name: string): Owner;
  readonly tools: {
    list(): ToolInfo[];
    call(agent: Owner, name: string, args: unknown, options?: ToolCallOptions): Promise<ToolResult>;
  };
  /** Every session-log record written from now on; returns the unsubscribe. */
  onLogRecord(listener: (record: Record<string, unknown>) => void): () => void;
  /** The composition as plain JSON (preset, config, sandbox, world). */
  dumpConfig(): Record<string, unknown>;
}
