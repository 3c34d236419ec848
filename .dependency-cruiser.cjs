/**
 * The layer rule of DESIGN §2, enforced: a lower layer never imports a higher one, a contract
 * package never imports its provider, and tool packages never import each other.
 * Run through scripts/check-layers.mjs, which also fails when nothing was scanned.
 */
const LAYERS = [
  ['core', 'core'],
  ['subprocess', 'subprocess/subprocess'],
  ['subprocess-local', 'subprocess/subprocess-local'],
  ['subprocess-remote', 'subprocess/subprocess-remote'],
  ['sandbox', 'sandbox/[^/]+'],
  ['shell', 'shell/shell'],
  ['bash-local', 'shell/bash-local'],
  ['jobs', 'jobs/jobs'],
  ['terminal', 'terminal/terminal'],
  ['terminal-bash', 'terminal/terminal-bash'],
  ['tools', 'tools/[^/]+'],
  ['lsp', 'lsp'],
  ['acp', 'acp'],
  ['mcp', 'mcp'],
  ['web', 'web'],
  ['dsh', 'dsh'],
];

/** Package name of each layer's directory, for resolutions that keep the node_modules path. */
const NAMES = {
  core: '@dsh/core',
  subprocess: '@dsh/subprocess',
  'subprocess-local': '@dsh/subprocess-local',
  'subprocess-remote': '@dsh/subprocess-remote',
  sandbox: '@dsh/sandbox',
  shell: '@dsh/shell',
  'bash-local': '@dsh/bash-local',
  jobs: '@dsh/jobs',
  terminal: '@dsh/terminal',
  'terminal-bash': '@dsh/terminal-bash',
  tools: '@dsh/tool-[^/]+',
  lsp: '@dsh/lsp',
  acp: '@dsh/acp',
  mcp: '@dsh/mcp',
  web: '@dsh/web',
  dsh: 'dsh',
};

const esc = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const dirOf = (dir) => `^packages/${dir}/`;
const targetOf = ([name, dir]) =>
  `(${dirOf(dir)}|^node_modules/${NAMES[name].startsWith('@') ? NAMES[name] : esc(NAMES[name])}/)`;

const forbidden = [];
LAYERS.forEach(([name, dir], i) => {
  const higher = LAYERS.slice(i + 1);
  if (higher.length === 0) return;
  forbidden.push({
    name: `layer-${name}`,
    comment: `${name} is below ${higher.map(([n]) => n).join(', ')} and must not import them (DESIGN §2).`,
    severity: 'error',
    from: { path: dirOf(dir) },
    to: { path: higher.map(targetOf).join('|') },
  });
});
forbidden.push({
  name: 'tool-siblings',
  comment: 'A tool package reaches services through ctx, never by importing another tool package.',
  severity: 'error',
  from: { path: '^packages/tools/([^/]+)/' },
  to: { path: '^packages/tools/([^/]+)/', pathNot: '^packages/tools/$1/' },
});
forbidden.push({
  name: 'not-to-unresolvable',
  comment: 'Every import must resolve, or the layer rule could not see it.',
  severity: 'error',
  from: {},
  to: { couldNotResolve: true },
});

module.exports = {
  forbidden,
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(dist|node_modules)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.depcruise.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['module', 'main', 'types'],
      extensions: ['.ts', '.js', '.mjs', '.cjs', '.d.ts', '.json'],
    },
  },
};
