/**
 * The red-team section of docs/threat-model.md, generated from the rows table: every attempt by
 * name, grouped by class, with what decides it on the host. Only the text between the two
 * markers is generated; the prose around it is written by hand.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KLASSES, type Row } from './rows/types.js';

export const BEGIN = '<!-- redteam:begin -->';
export const END = '<!-- redteam:end -->';

/** The threat model, from the repository root. */
export const THREAT_MODEL = join(dirname(fileURLToPath(import.meta.url)), '../../../../docs/threat-model.md');

/** The command that rewrites the section. */
export const REGENERATE = 'npx tsx scripts/threat-model-rows.ts';

/** What a new threat model holds before anyone writes its prose. */
export const SKELETON = `# Threat model of the fence\n\n## The red-team suite\n\n${BEGIN}\n${END}\n`;

const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** The generated section (without the markers). */
export function renderSection(rows: readonly Row[]): string {
  const attacks = rows.filter((r) => (r.kind ?? 'attack') === 'attack').length;
  const lines = [
    `<!-- Generated from packages/dsh/test/redteam/rows by \`${REGENERATE}\`; do not edit by hand. -->`,
    '',
    `${rows.length} rows (${attacks} attacks, ${rows.length - attacks} promises), each run as root and as an ordinary`,
    'user by `packages/dsh/test/redteam/redteam.test.ts`. Each is first shown to work on the host without',
    'a sandbox (a row that cannot be armed on a machine is reported, never passed); an attack passes',
    'when the host saw it stopped, a promise when it held. A row marked a known gap (see above) must',
    'still get through for the user it names: the suite fails when a gap closes and is not unmarked.',
  ];
  for (const [klass, heading] of Object.entries(KLASSES)) {
    const mine = rows.filter((r) => r.klass === klass);
    if (mine.length === 0) continue;
    lines.push('', `### ${heading}`, '', '| row | attempt | decided on the host by |', '| --- | --- | --- |');
    for (const r of mine) {
      const gaps = [r.gap?.root ? `as root: ${r.gap.root}` : '', r.gap?.user ? `as a user: ${r.gap.user}` : '']
        .filter(Boolean)
        .join('; ');
      const kind = `${r.kind === 'promise' ? ' (promise: must work)' : ''}${r.restores ? ' (restored after; not armed where it cannot be)' : ''}${gaps ? ` (**known gap**, ${gaps})` : ''}`;
      lines.push(`| \`${r.id}\` | ${cell(r.title)}${kind} | ${cell(r.proof)} |`);
    }
  }
  return lines.join('\n');
}

/** `doc` with its section replaced by `section` (a marked section is appended when there is none). */
export function splice(doc: string, section: string): string {
  const begin = doc.indexOf(BEGIN);
  const end = doc.indexOf(END);
  if (begin < 0 || end < begin) {
    return `${doc.replace(/\n*$/, '\n')}\n## The red-team suite\n\n${BEGIN}\n${section}\n${END}\n`;
  }
  return `${doc.slice(0, begin + BEGIN.length)}\n${section}\n${doc.slice(end)}`;
}

/** The section as the document holds it now, or null when it has no markers. */
export function currentSection(doc: string): string | null {
  const begin = doc.indexOf(BEGIN);
  const end = doc.indexOf(END);
  if (begin < 0 || end < begin) return null;
  return doc
    .slice(begin + BEGIN.length, end)
    .replace(/^\n/, '')
    .replace(/\n$/, '');
}
