/**
 * The tools a composition's plugins registered, and the one way to call them.
 */
import { DshError, isDshError } from './errors.js';
import { isOwner, type Owner } from './owner.js';
import type { Ctx } from './plugin.js';
import type { ToolCallOptions, ToolDefinition, ToolInfo, ToolResult } from './tools.js';

/** Tool names the model can call: lower snake_case, at most 64 characters (MCP's limit). */
const TOOL_NAME = /^[a-z][a-z0-9_]{0,63}$/;

/** Registered tools by name, each remembering which plugin registered it. */
export class ToolRegistry {
  private readonly tools = new Map<string, { tool: ToolDefinition; plugin: string }>();

  constructor(private readonly ctx: Ctx) {}

  /**
   * Adds a tool for `plugin`.
   * @throws DshError `INVALID_ARGUMENT` (bad name or shape), `TOOL_CONFLICT` (name taken by another plugin).
   */
  register(plugin: string, tool: ToolDefinition): void {
    if (!TOOL_NAME.test(tool?.name ?? '') || typeof tool.call !== 'function') {
      throw new DshError('INVALID_ARGUMENT', `Plugin "${plugin}" registered a tool without a valid snake_case name.`, {
        data: { plugin, tool: tool?.name },
      });
    }
    const held = this.tools.get(tool.name);
    if (held && held.plugin !== plugin) {
      throw new DshError('TOOL_CONFLICT', `Tool "${tool.name}" is already registered by "${held.plugin}".`, {
        data: { tool: tool.name, plugin, holder: held.plugin },
      });
    }
    this.tools.set(tool.name, { tool, plugin });
  }

  /** Removes the tools `plugin` registered, except those named in `keep` (on reload or teardown of that plugin). */
  dropPlugin(plugin: string, keep: ReadonlySet<string> = new Set()): void {
    for (const [name, held] of this.tools) if (held.plugin === plugin && !keep.has(name)) this.tools.delete(name);
  }

  /** The tools as a model sees them, in registration order. */
  list(): ToolInfo[] {
    return [...this.tools.values()].map(({ tool }) => ({
      name: tool.name,
      description: tool.description,
      inputSchema: tool.inputSchema,
      outputSchema: tool.outputSchema ?? { type: 'object' },
      annotations: { ...(tool.annotations ?? {}) },
    }));
  }

  /**
   * Calls a tool for `owner`. Never throws for model mistakes: an unknown tool or a failing tool
   * gives `isError` with text that says what to do next.
   * @param options harness-side options (signal, yield, progress, approver); never from the model.
   * @throws DshError `INVALID_ARGUMENT` when `owner` was not made by `createOwner` (a harness bug).
   */
  async call(owner: Owner, name: string, args: unknown, options: ToolCallOptions = {}): Promise<ToolResult> {
    if (!isOwner(owner)) {
      throw new DshError('INVALID_ARGUMENT', 'tools.call needs an owner made by createAgent()/createOwner().');
    }
    const held = this.tools.get(name);
    if (!held) {
      const names = [...this.tools.keys()].join(', ');
      return {
        text: `Unknown tool "${name}". Available tools: ${names || '(none)'}.`,
        isError: true,
        data: { error: { code: 'UNKNOWN_TOOL' } },
      };
    }
    try {
      return await held.tool.call(args, { ...options, ctx: this.ctx, owner });
    } catch (error) {
      const code = isDshError(error) ? error.code : 'INTERNAL_ERROR';
      const message = error instanceof Error ? error.message : String(error);
      return {
        text: `The ${name} tool failed inside dsh (${code}): ${message}. This is not caused by your arguments; retrying may help.`,
        isError: true,
        data: { error: { code, message } },
      };
    }
  }
}
