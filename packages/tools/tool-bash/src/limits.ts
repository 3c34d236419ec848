/** Longest tool text a model sees, in characters: large enough for real output, small enough for a context window. */
export const MODEL_OUTPUT_MAX_CHARS = 30_000;
