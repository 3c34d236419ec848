/**
 * A plugin shape for services that own live resources (processes, jobs, PTYs): a reload of the
 * plugin keeps the same instance, so what it owns lives on; composition teardown disposes it.
 */
import type { Ctx, Plugin, ServiceKey, ServiceMap } from './plugin.js';

/** What {@link persistentServicePlugin} needs. */
export interface PersistentServiceOptions<K extends ServiceKey> {
  /** Plugin name (the handle for `reload`). */
  name: string;
  /** The ctx key the service is provided under. */
  key: K;
  /** Keys that must be mounted first. @default [] */
  requires?: readonly string[];
  /** Makes the service; called on first mount, and again only after a teardown. */
  create(ctx: Ctx): ServiceMap[K];
  /** Ends what the service owns; called at teardown only, never on reload. */
  dispose(service: ServiceMap[K]): void | Promise<void>;
}

/** A plugin providing one long-lived service that survives reloads of itself. */
export function persistentServicePlugin<K extends ServiceKey>(options: PersistentServiceOptions<K>): Plugin {
  let service: ServiceMap[K] | undefined;
  return {
    name: options.name,
    requires: options.requires ?? [],
    setup(api) {
      const current: ServiceMap[K] = service === undefined ? options.create(api.ctx) : service;
      service = current;
      api.provide(options.key, current);
    },
    async dispose(reason) {
      if (reason === 'reload' || service === undefined) return;
      const owned = service;
      service = undefined;
      await options.dispose(owned);
    },
  };
}
