// Small DOM helpers of the page: elements are built with text nodes only (never HTML strings).

/** An element with attributes and children (strings become text nodes). */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === false || value === null || value === undefined) continue;
    if (name === 'class') node.className = value;
    else node.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children) node.append(child instanceof Node ? child : String(child));
  return node;
}

/** The class of a marker badge: green for a clean exit, red for a failure or a cut, yellow otherwise. */
export function badgeClass(marker) {
  if (/^\[exit code: 0\]$/.test(marker)) return 'badge ok';
  if (/exit code|timed out|killed|signal|aborted|denied|failed|error/i.test(marker)) return 'badge bad';
  return 'badge warn';
}

/** The markers as badges. */
export function badges(markers) {
  return el('span', { class: 'badges' }, ...markers.map((m) => el('span', { class: badgeClass(m) }, m)));
}

/** Keeps the last `max` characters of a text node's parent `pre`. */
export function appendBounded(pre, text, max) {
  const next = (pre.textContent ?? '') + text;
  pre.textContent = next.length > max ? next.slice(next.length - max) : next;
  pre.scrollTop = pre.scrollHeight;
}

/** Shows a short notice (errors stay longer). */
export function notify(text, level = 'error') {
  const box = document.getElementById('notices');
  const item = el('div', { class: `notice ${level}`, 'data-code': level }, text);
  box.append(item);
  while (box.children.length > 5) box.firstElementChild.remove();
  setTimeout(() => item.remove(), level === 'error' ? 8000 : 4000);
}
