/**
 * The composition kernel: mounts plugins in order, exposes their services on `ctx`,
 * re-runs one plugin on `reload(name)`, and disposes everything in reverse order at teardown.
 */
import { DshError } from './errors.js';
import type { Ctx, Plugin, ServiceKey, ServiceMap } from './plugin.js';
import { ToolRegistry } from './tool-registry.js';
import type { ToolDefinition } from './tools.js';

interface Mounted {
  readonly plugin: Plugin;
  /** Keys this plugin provides while mounted. */
  keys: string[];
  mounted: boolean;
}

/** A set of mounted plugins and their services. Create with {@link Composition.create}. */
export class Composition {
  readonly ctx: Ctx;
  /** Tools registered by the mounted plugins. */
  readonly tools: ToolRegistry;
  private readonly entries: Mounted[] = [];
  private readonly services = new Map<string, { service: unknown; owner: Mounted }>();
  private state: 'open' | 'disposing' | 'disposed' = 'open';
  private queue: Promise<unknown> = Promise.resolve();

  private constructor() {
    this.ctx = createCtx(this.services);
    this.tools = new ToolRegistry(this.ctx);
  }

  /**
   * Mounts `plugins` in order. If one fails, the ones already mounted are disposed in
   * reverse order and the failure is rethrown.
   * @throws DshError `PLUGIN_CONFLICT` (duplicate name), `SERVICE_NOT_FOUND` (a `requires`
   *   key no earlier plugin provides), `SERVICE_CONFLICT`, or `PLUGIN_SETUP_FAILED`.
   */
  static async create(plugins: readonly Plugin[]): Promise<Composition> {
    const composition = new Composition();
    const names = new Set<string>();
    for (const plugin of plugins) {
      if (typeof plugin?.name !== 'string' || plugin.name === '' || typeof plugin.setup !== 'function') {
        throw new DshError('INVALID_ARGUMENT', 'Every plugin needs a non-empty name and a setup function.');
      }
      if (names.has(plugin.name)) {
        throw new DshError('PLUGIN_CONFLICT', `Two plugins are named "${plugin.name}"; give each a unique name.`, {
          data: { plugin: plugin.name },
        });
      }
      names.add(plugin.name);
    }
    try {
      for (const plugin of plugins) {
        const entry: Mounted = { plugin, keys: [], mounted: false };
        composition.entries.push(entry);
        await composition.mount(entry, 'mount');
      }
    } catch (error) {
      await composition.dispose().catch(() => undefined);
      throw error;
    }
    return composition;
  }

  /** Names of the plugins, in mount order, with whether each is mounted now. */
  plugins(): { name: string; mounted: boolean; provides: string[] }[] {
    return this.entries.map((e) => ({ name: e.plugin.name, mounted: e.mounted, provides: [...e.keys] }));
  }

  /**
   * Re-runs one plugin: disposes it with reason `'reload'` and runs its setup again.
   * Services of other plugins, including those it stands on, are not disposed. Its own services
   * and tools stay visible until the new setup replaces them: callers never see a gap.
   * @throws DshError `PLUGIN_NOT_FOUND`, `DISPOSED`, or the setup failure (the plugin is then unmounted).
   */
  reload(name: string): Promise<void> {
    return this.serialize(async () => {
      this.assertOpen();
      const entry = this.entries.find((e) => e.plugin.name === name);
      if (!entry) {
        throw new DshError('PLUGIN_NOT_FOUND', `No plugin named "${name}" is mounted; see plugins() for names.`, {
          data: { plugin: name },
        });
      }
      if (entry.mounted) await entry.plugin.dispose?.('reload');
      const before = entry.keys;
      entry.keys = [];
      const tools = new Set<string>();
      await this.mount(entry, 'reload', tools);
      // What the new setup did not provide again is gone now.
      for (const key of before) {
        if (!entry.keys.includes(key) && this.services.get(key)?.owner === entry) this.services.delete(key);
      }
      this.tools.dropPlugin(entry.plugin.name, tools);
    });
  }

  /**
   * Teardown: disposes every mounted plugin in reverse mount order with reason `'teardown'`.
   * Idempotent. Every plugin is disposed even if an earlier dispose fails.
   * @throws DshError `TEARDOWN_FAILED` with `data.errors` when any dispose failed.
   */
  dispose(): Promise<void> {
    if (this.state !== 'open') return this.queue.then(() => undefined);
    this.state = 'disposing';
    return this.serialize(async () => {
      const errors: unknown[] = [];
      for (const entry of [...this.entries].reverse()) {
        if (!entry.mounted) continue;
        try {
          await this.unmount(entry, 'teardown');
        } catch (error) {
          errors.push(error);
        }
      }
      this.state = 'disposed';
      if (errors.length > 0) {
        throw new DshError('TEARDOWN_FAILED', `${errors.length} plugin(s) failed to dispose.`, {
          cause: errors[0],
          data: { errors },
        });
      }
    });
  }

  private async mount(entry: Mounted, phase: 'mount' | 'reload', tools = new Set<string>()): Promise<void> {
    const { plugin } = entry;
    for (const key of plugin.requires ?? []) {
      if (!this.services.has(key)) {
        throw new DshError(
          'SERVICE_NOT_FOUND',
          `Plugin "${plugin.name}" requires ctx.${key}, which no earlier plugin provides; mount its provider first.`,
          { data: { plugin: plugin.name, key } },
        );
      }
    }
    const api = {
      ctx: this.ctx,
      phase,
      provide: <K extends ServiceKey>(key: K, service: ServiceMap[K]) => {
        const holder = this.services.get(key);
        if (holder && holder.owner !== entry) {
          throw new DshError(
            'SERVICE_CONFLICT',
            `ctx.${key} is already provided by "${holder.owner.plugin.name}"; "${plugin.name}" cannot provide it too.`,
            { data: { key, plugin: plugin.name, provider: holder.owner.plugin.name } },
          );
        }
        this.services.set(key, { service, owner: entry });
        if (!entry.keys.includes(key)) entry.keys.push(key);
      },
      registerTool: (tool: ToolDefinition) => {
        this.tools.register(plugin.name, tool);
        tools.add(tool.name);
      },
    };
    try {
      await plugin.setup(api);
      entry.mounted = true;
    } catch (error) {
      entry.mounted = false;
      this.dropKeys(entry);
      if (error instanceof DshError) throw error;
      throw new DshError('PLUGIN_SETUP_FAILED', `Plugin "${plugin.name}" failed to set up: ${String(error)}`, {
        cause: error,
        data: { plugin: plugin.name, phase },
      });
    }
  }

  private async unmount(entry: Mounted, reason: 'reload' | 'teardown'): Promise<void> {
    entry.mounted = false;
    this.dropKeys(entry);
    await entry.plugin.dispose?.(reason);
  }

  /** Removes every service and tool of `entry` (whatever setup run provided them). */
  private dropKeys(entry: Mounted): void {
    this.tools.dropPlugin(entry.plugin.name);
    for (const [key, holder] of this.services) if (holder.owner === entry) this.services.delete(key);
    entry.keys = [];
  }

  private assertOpen(): void {
    if (this.state !== 'open') {
      throw new DshError('DISPOSED', 'This composition has been disposed; create a new one.');
    }
  }

  /** Runs lifecycle operations one at a time, in call order. */
  private serialize<T>(op: () => Promise<T>): Promise<T> {
    const run = this.queue.then(op, op);
    this.queue = run.catch(() => undefined);
    return run;
  }
}

function createCtx(services: Map<string, { service: unknown }>): Ctx {
  const methods = {
    get(key: string): unknown {
      const holder = services.get(key);
      if (!holder) {
        throw new DshError('SERVICE_NOT_FOUND', `ctx.${key} is not mounted in this composition.`, { data: { key } });
      }
      return holder.service;
    },
    has: (key: string) => services.has(key),
    keys: () => [...services.keys()],
  };
  return new Proxy(methods, {
    get(target, prop, receiver) {
      if (typeof prop === 'string' && services.has(prop)) return services.get(prop)?.service;
      return Reflect.get(target, prop, receiver);
    },
    has: (target, prop) => (typeof prop === 'string' && services.has(prop)) || Reflect.has(target, prop),
  }) as unknown as Ctx;
}
