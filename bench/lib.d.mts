// Types of the shared benchmark helpers (bench/lib.mjs), for the TypeScript bench parts.
export declare const MiB: number;
export declare const GiB: number;
export declare function median(values: readonly number[]): number;
export declare function percentile(values: readonly number[], p: number): number;
export declare function timed(fn: () => unknown): Promise<number>;
export declare const fmt: (n: number, digits?: number) => string;
