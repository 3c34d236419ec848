/**
 * Lazy loading of `@xterm/headless` (and of its serializer, for watchers): one-shot users never
 * load a terminal emulator; the first terminal does, once. A failed load is tried again next time.
 */
import { DshError } from '@dsh/core';
import type * as Serialize from '@xterm/addon-serialize';
import type * as Xterm from '@xterm/headless';

/** The emulator class. */
export type XtermTerminal = Xterm.Terminal;
export type XtermModule = typeof Xterm;
/** The addon that writes a screen out as terminal sequences (for watchers). */
export type SerializeModule = typeof Serialize;

/** A module loaded on first use; its failure is a DshError `code` saying what to install. */
function lazy<T>(load: () => Promise<unknown>, code: string, what: string): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () => {
    loading ??= load().then(
      (mod) => (mod as { default?: T }).default ?? (mod as T),
      (error: unknown) => {
        loading = undefined;
        const why = error instanceof Error ? error.message : String(error);
        throw new DshError(code, `${what} could not be loaded (${why}); install it to use terminals.`, {
          cause: error,
        });
      },
    );
    return loading;
  };
}

/** @throws DshError `TERMINAL_UNAVAILABLE` (rejection) when the emulator cannot be loaded. */
export const loadXterm: () => Promise<XtermModule> = lazy(
  () => import('@xterm/headless'),
  'TERMINAL_UNAVAILABLE',
  'the terminal emulator @xterm/headless',
);

/** @throws DshError `TERMINAL_WATCH_UNSUPPORTED` (rejection) when the serializer cannot be loaded. */
export const loadSerialize: () => Promise<SerializeModule> = lazy(
  () => import('@xterm/addon-serialize'),
  'TERMINAL_WATCH_UNSUPPORTED',
  '@xterm/addon-serialize (what lets a page watch a terminal)',
);
