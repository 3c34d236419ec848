/**
 * The argument and result schemas every lsp_* tool shares: a workspace-relative path, a place
 * (line and column 1-based, the column in characters; each description says so once, as
 * {@link PLACE}), and the facts of an error, a count or the files an edit changed.
 */
import { z } from 'zod';

export const pathArg = z.string().min(1).describe('workspace-relative path');
/** The fields of a place. */
export const placeFields = { path: pathArg, line: z.number().int().min(1), column: z.number().int().min(1) };
/** How a description names a place. */
export const PLACE = 'path:line:column (1-based; column in characters)';

/** `data.error.code` of an error result. */
export const errorFact = { error: z.object({ code: z.string() }).optional() };
export const countOutput = z.object({ ...errorFact, count: z.number().optional() });
/** The files an edit changed (workspace-relative). */
export const filesOutput = z.object({ ...errorFact, files: z.array(z.string()).optional() });
