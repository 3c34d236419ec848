/**
 * What an agent is told when its remote world was lost and made again (issue 25, 2): the first
 * call of each agent in the new world carries a note that it is a fresh world and what went with
 * the old one. The runtime counts its worlds (`generation`); this keeps, per agent, the last one
 * it saw. A runtime that is never remade has no generation, and no note is ever given.
 */
import type { Ctx, Owner } from '@dsh/core';

/** What a runtime that remakes its world says of itself. */
interface Remade {
  generation: number;
  lastLoss: { cause: string; running: number } | null;
}

function remadeOf(ctx: Ctx): Remade | null {
  const rt = (ctx as unknown as { subprocess?: Partial<Remade> }).subprocess;
  return typeof rt?.generation === 'number' ? (rt as Remade) : null;
}

/** Whether the world is one that is made again after a loss. */
export function worldComesBack(ctx: Ctx): boolean {
  return remadeOf(ctx) !== null;
}

/** The generations each agent has seen. */
export class WorldGenerations {
  private readonly seen = new WeakMap<Owner, number>();

  /** The note for `owner`'s call when its world is not the one it last ran in, else null. */
  noteFor(ctx: Ctx, owner: Owner): string | null {
    const remade = remadeOf(ctx);
    if (!remade) return null;
    const before = this.seen.get(owner);
    this.seen.set(owner, remade.generation);
    if (before === undefined || before === remade.generation) return null;
    const loss = remade.lastLoss;
    const running = loss && loss.running > 0 ? ` (${loss.running} running then)` : '';
    const cause = loss ? `: ${loss.cause.replace(/\s+/g, ' ').slice(0, 200)}` : '';
    return `the connection to the machine was lost and dsh connected again${cause}. This is a fresh world: the background jobs, terminals and processes of the lost one are gone${running}, and so are files it kept in /tmp; files in the workspace stay`;
  }
}
