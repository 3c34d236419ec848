// dsh web: the page. One WebSocket to the server it came from (the token is part of this page's
// path, so relative URLs carry it); everything shown is pushed by the server.
import { notify } from './dom.js';
import { Jobs, Log, Results } from './lists.js';
import { Terminals } from './terminals.js';

// xterm.js adds its own <style> elements; the page's Content-Security-Policy allows them by this nonce.
const nonce = document.querySelector('meta[name="dsh-style-nonce"]')?.getAttribute('content') ?? '';
const createElement = document.createElement.bind(document);
document.createElement = (tag, options) => {
  const node = createElement(tag, options);
  if (String(tag).toLowerCase() === 'style') node.setAttribute('nonce', nonce);
  return node;
};

/** Reconnect delays: quick at first, then at most this; back to quick once a connection held this long. */
const RETRY_MIN_MS = 500;
const RETRY_MAX_MS = 5000;
const RETRY_RESET_MS = 10000;

let socket = null;
let retryMs = RETRY_MIN_MS;
let refs = 0;
const send = (message) => {
  if (socket?.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message));
};
const terminals = new Terminals(send);
const jobs = new Jobs(send);
const results = new Results();
const log = new Log();
const status = document.getElementById('status');

function hello(message) {
  const f = message.facts;
  document.querySelector('h1').textContent = message.title;
  document.title = message.title;
  document.getElementById('facts').textContent =
    `preset ${f.preset} · workspace ${f.workspace} · sandbox ${f.sandbox} · world ${f.world}${f.log ? '' : ' · no session log'}`;
  const mode = document.getElementById('mode');
  mode.textContent = message.input ? 'input allowed' : 'read-only';
  mode.className = message.input ? 'badge warn' : 'badge';
  document.body.dataset.input = String(message.input);
  for (const id of ['open-terminal', 'command', 'background', 'run'])
    document.getElementById(id).disabled = !message.input;
  terminals.setInput(message.input, message.agent);
  jobs.setInput(message.input);
}

const handlers = {
  hello,
  terminals: (m) => terminals.list(m.list),
  screen: (m) => terminals.screen(m),
  output: (m) => terminals.output(m),
  jobs: (m) => jobs.list(m.list),
  job_output: (m) => jobs.output(m),
  log: (m) => log.add(m.records),
  result: (m) => results.done(m),
  notice: (m) => notify(m.text, m.level),
};

function connect() {
  const path = location.pathname.endsWith('/') ? location.pathname : `${location.pathname}/`;
  socket = new WebSocket(`${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}${path}ws`);
  let held = null;
  socket.addEventListener('open', () => {
    held = setTimeout(() => {
      retryMs = RETRY_MIN_MS;
    }, RETRY_RESET_MS);
    status.textContent = 'live';
    status.className = 'badge ok';
    document.body.dataset.connected = 'true';
  });
  socket.addEventListener('message', (event) => {
    const message = JSON.parse(event.data);
    handlers[message.type]?.(message);
  });
  socket.addEventListener('close', () => {
    clearTimeout(held);
    document.body.dataset.connected = 'false';
    status.textContent = 'disconnected: reconnecting…';
    status.className = 'badge bad';
    terminals.reset();
    jobs.reset();
    log.reset();
    results.reset();
    setTimeout(connect, retryMs);
    retryMs = Math.min(RETRY_MAX_MS, retryMs * 2);
  });
}

document.getElementById('open-terminal').addEventListener('click', () => {
  terminals.focusNext = true;
  send({ type: 'open' });
});
document.getElementById('run-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const input = document.getElementById('command');
  const command = input.value.trim();
  if (command === '') return;
  const background = document.getElementById('background').checked;
  const ref = `r${++refs}`;
  results.started(ref, command, background);
  send({ type: 'run', ref, command, background });
  input.value = '';
  document.getElementById('background').checked = false; // each command says again where it runs
});

connect();
