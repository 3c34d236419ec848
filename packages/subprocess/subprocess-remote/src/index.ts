/**
 * @dsh/subprocess-remote: ctx.subprocess over a channel (DESIGN §15) — `RemoteSubprocessRuntime`
 * on the client side, `RuntimeServer` / `serveRuntimeStdio` (the entry of `dsh runtime serve
 * --stdio`) on the far side, and `connectChannel` to start a channel from an argv.
 */

export { BOOT_TAG, bootArgv, joinsArgv } from './boot-script.js';
export type { ConnectedWorld, WorldOptions } from './bootstrap.js';
export { BOOT_TIMEOUT_MS, connectWorld } from './bootstrap.js';
export type { ChannelOptions } from './channel.js';
export { CHANNEL_STDERR_TAIL_BYTES, connectChannel, runtimeOver, SERVER_ENTRY, startChannel } from './channel.js';
export { disconnected, LOSS_REASON_WAIT_MS } from './client.js';
export type { FenceFiles } from './fence-files.js';
export { defaultFenceDir, ensurePrivateFenceDir, placeSeccomp, prepareFenceFiles } from './fence-files.js';
export { DATA_CHUNK_BYTES, MAX_FRAME_BYTES } from './frames.js';
export { hostFacts, REMOTE_BWRAP_PATH } from './host-facts.js';
export type { Channel } from './remote-runtime.js';
export { RemoteSubprocessRuntime } from './remote-runtime.js';
export { serveRuntimeStdio } from './serve-stdio.js';
export type { ServerInfo } from './server.js';
export { RuntimeServer } from './server.js';
export { PROTOCOL_VERSION } from './wire.js';
