/**
 * The locale of commands and terminals whose environment names none. An MCP client often starts
 * its servers with no `LANG`, and in the POSIX locale a UTF-8 file reads as bytes (vim shows
 * `<e6><97><a5>`, less asks whether it is binary). The entry is managed: an explicit `env` entry,
 * or a locale the environment already names, wins.
 */

/** UTF-8 text with the C rules otherwise; built into glibc 2.35+ and musl, so no locale package is needed. */
export const FALLBACK_LOCALE = 'C.UTF-8';

/** The locale variables that decide the character set, in the order the C library reads them. */
const LOCALE_NAMES = ['LC_ALL', 'LC_CTYPE', 'LANG'] as const;

/** `{ LANG: FALLBACK_LOCALE }` when `env` sets none of `LC_ALL`, `LC_CTYPE`, `LANG` (empty counts as unset); else `{}`. */
export function localeEntries(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  return LOCALE_NAMES.some((name) => (env[name] ?? '') !== '') ? {} : { LANG: FALLBACK_LOCALE };
}
