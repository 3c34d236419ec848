/**
 * A streaming terminal-output sanitizer: strips control sequences (CSI, OSC, DCS/SOS/PM/APC,
 * other escapes, C0/C1 controls except newline and tab) and keeps the text intact. OSC payloads
 * are handed to a callback with the sanitized offset where they occurred, so prompt markers are
 * found by the same parser that hides them. Sequences split across chunks are handled.
 */

/** Longest CSI sequence kept as one: a longer run is malformed and is given back as text. */
const MAX_CSI_LENGTH = 64;
/** Longest OSC payload remembered: prompt markers are short; longer payloads are only skipped. */
const MAX_OSC_PAYLOAD = 4096;
/** Longest DCS/SOS/PM/APC string swallowed: a stray opener in binary output must not hide the text after it. */
const MAX_STRING_LENGTH = 4096;
/** CAN and SUB abort any sequence in progress. */
const CAN = 0x18;
const SUB = 0x1a;

type State = 'text' | 'esc' | 'escInter' | 'csi' | 'osc' | 'oscEsc' | 'str' | 'strEsc';

/** Called with an OSC payload and the sanitized offset (characters since the start) it occurred at. */
export type OscListener = (payload: string, offset: number) => void;
/** Called with a CSI sequence's body (parameters and final byte, e.g. `?2004l`) and its offset. */
export type CsiListener = (body: string, offset: number) => void;

/** Sanitizes a stream chunk by chunk. */
export class Sanitizer {
  private state: State = 'text';
  private seq = '';
  private osc = '';
  private strLength = 0;
  private pendingCr = false;
  private emitted = 0;

  constructor(
    private readonly onOsc: OscListener = () => undefined,
    private readonly onCsi: CsiListener = () => undefined,
  ) {}

  /** Characters of sanitized text produced so far. */
  get offset(): number {
    return this.emitted;
  }

  /** Sanitizes the next chunk; returns the text it contributes. */
  push(chunk: string): string {
    let out = '';
    const emit = (s: string): void => {
      out += s;
      this.emitted += s.length;
    };
    for (const ch of chunk) {
      const c = ch.codePointAt(0) as number;
      if (this.pendingCr) {
        this.pendingCr = false;
        if (ch === '\n') {
          emit('\n');
          continue;
        }
        emit('\n'); // a lone carriage return ends the line, so no text is overwritten away
      }
      if ((c === CAN || c === SUB) && this.state !== 'text') {
        this.state = 'text'; // sequence aborted; the control itself is not text
        continue;
      }
      switch (this.state) {
        case 'text':
          if (c === 0x1b) this.state = 'esc';
          else if (ch === '\r') this.pendingCr = true;
          else if (ch === '\n' || ch === '\t') emit(ch);
          else if (c === 0x9b) this.enter('csi');
          else if (c === 0x9d) this.enter('osc');
          else if (c < 0x20 || c === 0x7f || (c >= 0x80 && c <= 0x9f)) {
            // other controls (BEL, BS, SO/SI, C1): not text
          } else emit(ch);
          break;
        case 'esc':
          if (ch === '[') this.enter('csi');
          else if (ch === ']') this.enter('osc');
          else if (ch === 'P' || ch === 'X' || ch === '^' || ch === '_') {
            this.state = 'str';
            this.strLength = 0;
          } else if (c >= 0x20 && c <= 0x2f) this.state = 'escInter';
          else if (c === 0x1b) this.state = 'esc';
          else this.state = 'text'; // two-character escape (ESC 7, ESC =, ESC M, …)
          break;
        case 'escInter':
          if (c >= 0x30 && c <= 0x7e) this.state = 'text';
          else if (c === 0x1b) this.state = 'esc';
          break;
        case 'csi':
          if (c >= 0x40 && c <= 0x7e) {
            this.state = 'text';
            this.onCsi(this.seq + ch, this.emitted);
          } else if (c === 0x1b) this.state = 'esc';
          else if (c < 0x20) {
            // controls inside CSI are ignored
          } else if (this.seq.length >= MAX_CSI_LENGTH) {
            emit(this.seq + ch); // malformed: give it back as text
            this.state = 'text';
          } else this.seq += ch;
          break;
        case 'osc':
          if (c === 0x07) this.endOsc();
          else if (c === 0x1b) this.state = 'oscEsc';
          else if (c === 0x9c) this.endOsc();
          else if (this.osc.length < MAX_OSC_PAYLOAD) this.osc += ch;
          break;
        case 'oscEsc':
          if (ch === '\\') this.endOsc();
          else {
            this.endOsc(); // ESC without "\": the OSC ended; this ESC starts a new sequence
            this.state = ch === '[' ? 'csi' : ch === ']' ? 'osc' : 'text';
            this.seq = '';
            this.osc = '';
          }
          break;
        case 'str':
          if (c === 0x1b) this.state = 'strEsc';
          else if (c === 0x9c || c === 0x07) this.state = 'text';
          else if (++this.strLength > MAX_STRING_LENGTH) this.state = 'text'; // runaway: give the rest back as text
          break;
        case 'strEsc':
          if (ch === '\\') this.state = 'text';
          else {
            // ESC not followed by "\" ends the string; this ESC starts the next sequence
            this.state = ch === '[' ? 'csi' : ch === ']' ? 'osc' : 'text';
            this.seq = '';
            this.osc = '';
          }
          break;
      }
    }
    return out;
  }

  private enter(state: 'csi' | 'osc'): void {
    this.state = state;
    this.seq = '';
    this.osc = '';
  }

  private endOsc(): void {
    this.state = 'text';
    const payload = this.osc;
    this.osc = '';
    this.onOsc(payload, this.emitted);
  }
}

/** Sanitizes a whole text at once. */
export function sanitize(text: string): string {
  return new Sanitizer().push(text);
}
