/**
 * Plugin and service vocabulary of the composition kernel.
 *
 * A plugin provides services under keys of {@link ServiceMap}; other packages extend
 * that map by declaration merging, e.g.
 * `declare module '@dsh/core' { interface ServiceMap { subprocess: SubprocessRuntime } }`.
 */

import type { ToolDefinition } from './tools.js';

/** Services by ctx key. Empty here; each contract package adds its key. */
// biome-ignore lint/suspicious/noEmptyInterface: extended by declaration merging
export interface ServiceMap {}

/** A key of {@link ServiceMap}. */
export type ServiceKey = keyof ServiceMap & string;

/** Why a plugin is being disposed. */
export type DisposeReason = 'reload' | 'teardown';

/** Read access to the services mounted in a composition. */
export type Ctx = Readonly<Partial<ServiceMap>> & {
  /**
   * The service under `key`.
   * @throws DshError `SERVICE_NOT_FOUND` when nothing provides it right now.
   */
  get<K extends ServiceKey>(key: K): ServiceMap[K];
  /** True when a service is mounted under `key`. */
  has(key: string): boolean;
  /** Keys mounted right now, in mount order. */
  keys(): string[];
};

/** What a plugin's `setup` receives. */
export interface PluginApi {
  /** The composition's ctx; read services at call time, never cache them across reloads. */
  readonly ctx: Ctx;
  /** Why setup runs: first mount, or a reload of this plugin. */
  readonly phase: 'mount' | 'reload';
  /**
   * Registers `service` under `key` for this plugin.
   * @throws DshError `SERVICE_CONFLICT` when another plugin already provides `key`.
   */
  provide<K extends ServiceKey>(key: K, service: ServiceMap[K]): void;
  /**
   * Registers a model-facing tool for this plugin; it is dropped when the plugin is reloaded or disposed.
   * @throws DshError `INVALID_ARGUMENT`, `TOOL_CONFLICT`.
   */
  registerTool(tool: ToolDefinition): void;
}

/** A unit of composition: provides services, may depend on services of earlier plugins. */
export interface Plugin {
  /** Unique name within a composition; the handle for `reload(name)`. */
  readonly name: string;
  /** Keys this plugin needs mounted before its setup runs. @default [] */
  readonly requires?: readonly string[];
  /**
   * Mounts the plugin: create services and `provide` them.
   * A throw here aborts the mount (first mount) or leaves the plugin unmounted (reload).
   */
  setup(api: PluginApi): void | Promise<void>;
  /**
   * Releases what setup made. `reason` is `'reload'` when only this plugin is re-run
   * (keep long-lived state owned by lower services alive) and `'teardown'` at composition end.
   * @default no-op
   */
  dispose?(reason: DisposeReason): void | Promise<void>;
}
