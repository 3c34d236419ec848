/**
 * Lazy loading of `@xterm/headless`: one-shot users never load a terminal emulator; the first
 * terminal does, once.
 */
import { DshError } from '@dsh/core';
import type * as Serialize from '@xterm/addon-serialize';
import type * as Xterm from '@xterm/headless';

/** The emulator class. */
export type XtermTerminal = Xterm.Terminal;
export type XtermModule = typeof Xterm;
/** The addon that writes a screen out as terminal sequences (for watchers). */
export type SerializeModule = typeof Serialize;

let loading: Promise<XtermModule> | undefined;

/** @throws DshError `TERMINAL_UNAVAILABLE` (rejection) when the emulator cannot be loaded. */
export function loadXterm(): Promise<XtermModule> {
  loading ??= import('@xterm/headless').then(
    (mod) => (mod as unknown as { default?: XtermModule }).default ?? mod,
    (error: unknown) => {
      loading = undefined;
      throw new DshError(
        'TERMINAL_UNAVAILABLE',
        `the terminal emulator @xterm/headless could not be loaded (${error instanceof Error ? error.message : String(error)}); install it to use terminals.`,
        { cause: error },
      );
    },
  );
  return loading;
}

let loadingSerialize: Promise<SerializeModule> | undefined;

/** @throws DshError `TERMINAL_WATCH_UNSUPPORTED` (rejection) when the serializer cannot be loaded. */
export function loadSerialize(): Promise<SerializeModule> {
  loadingSerialize ??= import('@xterm/addon-serialize').then(
    (mod) => (mod as unknown as { default?: SerializeModule }).default ?? mod,
    (error: unknown) => {
      loadingSerialize = undefined;
      throw new DshError(
        'TERMINAL_WATCH_UNSUPPORTED',
        `@xterm/addon-serialize could not be loaded (${error instanceof Error ? error.message : String(error)}); install it to watch terminals.`,
        { cause: error },
      );
    },
  );
  return loadingSerialize;
}
