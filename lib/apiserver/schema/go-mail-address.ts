import { isIP } from 'node:net';

/**
 * Go's `net/mail.ParseAddress` (Go 1.23, as Kubernetes 1.28-1.36 are built), the `email` format of kube-openapi
 * (`strfmt.IsEmail`: parsed without error and a non-empty address). A port of the parser's accepting paths:
 * an addr-spec (dot-atom or quoted local part; dot-atom domain or an IP address in brackets) optionally followed by a
 * parenthesised comment, or a display name (words: atoms, quoted strings, RFC 2047 encoded words) before
 * `<addr-spec>`, or a group `name: a, b;` (refused: a single address is required, an empty group has none).
 * Strings are read as UTF-8 code points, as Go does.
 *
 * @internal
 */
export function isGoMailAddress(text: string): boolean {
  const p = new AddressParser(text);
  try {
    const addresses = p.parseAddress(true);
    if (!p.skipCFWS()) return false;
    if (!p.empty()) return false;
    return addresses.length === 1 && addresses[0] !== '';
  } catch (e) {
    if (e instanceof MailError) return false;
    throw e;
  }
}

class MailError extends Error {}

const fail = (message: string): never => {
  throw new MailError(message);
};

class AddressParser {
  constructor(private s: string) {}

  public empty(): boolean {
    return this.s.length === 0;
  }

  private peek(): string {
    return this.s[0];
  }

  private consume(c: string): boolean {
    if (this.empty() || this.peek() !== c) return false;
    this.s = this.s.slice(1);
    return true;
  }

  private skipSpace(): void {
    this.s = this.s.replace(/^[ \t]+/, '');
  }

  /** Returns the addresses found (a group may have none). */
  public parseAddress(handleGroup: boolean): string[] {
    this.skipSpace();
    if (this.empty()) fail('mail: no address');
    // an addr-spec first; else a display name and an angle-addr (or a group)
    const spec = this.tryAddrSpec();
    if (spec !== undefined) {
      this.skipSpace();
      if (!this.empty() && this.peek() === '(') this.consumeDisplayNameComment();
      return [spec];
    }
    if (this.peek() !== '<') this.consumePhrase();
    this.skipSpace();
    if (handleGroup && this.consume(':')) return this.consumeGroupList();
    if (!this.consume('<')) fail('mail: no angle-addr');
    const inner = this.tryAddrSpec();
    if (inner === undefined) fail('mail: invalid addr-spec');
    if (!this.consume('>')) fail('mail: unclosed angle-addr');
    return [inner!];
  }

  private consumeGroupList(): string[] {
    const group: string[] = [];
    this.skipSpace();
    if (this.consume(';')) {
      this.skipCFWS();
      return group;
    }
    for (;;) {
      this.skipSpace();
      group.push(...this.parseAddress(false));
      if (!this.skipCFWS()) fail('mail: misformatted parenthetical comment');
      if (this.consume(';')) {
        this.skipCFWS();
        break;
      }
      if (!this.consume(',')) fail('mail: expected comma');
    }
    return group;
  }

  /** consumeAddrSpec, restoring the input when it fails (undefined). */
  private tryAddrSpec(): string | undefined {
    const orig = this.s;
    try {
      return this.consumeAddrSpec();
    } catch (e) {
      if (!(e instanceof MailError)) throw e;
      this.s = orig;
      return undefined;
    }
  }

  private consumeAddrSpec(): string {
    this.skipSpace();
    if (this.empty()) fail('mail: no addr-spec');
    let local: string;
    if (this.peek() === '"') {
      local = this.consumeQuotedString();
      if (local === '') fail('mail: empty quoted string in addr-spec');
    } else {
      local = this.consumeAtom(true, false);
    }
    if (!this.consume('@')) fail('mail: missing @ in addr-spec');
    this.skipSpace();
    if (this.empty()) fail('mail: no domain in addr-spec');
    const domain = this.peek() === '[' ? this.consumeDomainLiteral() : this.consumeAtom(true, false);
    return `${local}@${domain}`;
  }

  private consumePhrase(): void {
    const words: string[] = [];
    let error: unknown;
    for (;;) {
      this.skipSpace();
      if (this.empty()) break;
      try {
        if (this.peek() === '"') {
          words.push(this.consumeQuotedString());
        } else {
          // dot-atom, more permissive than RFC 5322
          words.push(decodeEncodedWord(this.consumeAtom(true, true)));
        }
      } catch (e) {
        if (!(e instanceof MailError)) throw e;
        error = e;
        break;
      }
    }
    // an error is ignored when at least one word was read
    if (error !== undefined && words.length === 0) fail('mail: missing word in phrase');
  }

  private consumeQuotedString(): string {
    const cps = [...this.s];
    let i = 1;
    let out = '';
    let escaped = false;
    for (;;) {
      if (i >= cps.length) fail('mail: unclosed quoted-string');
      const r = cps[i];
      if (escaped) {
        if (!isVchar(r) && !isWSP(r)) fail('mail: bad character in quoted-string');
        out += r;
        escaped = false;
      } else if (isQtext(r) || isWSP(r)) {
        out += r;
      } else if (r === '"') {
        break;
      } else if (r === '\\') {
        escaped = true;
      } else {
        fail('mail: bad character in quoted-string');
      }
      i++;
    }
    this.s = cps.slice(i + 1).join('');
    return out;
  }

  private consumeAtom(dot: boolean, permissive: boolean): string {
    const cps = [...this.s];
    let i = 0;
    while (i < cps.length && isAtext(cps[i], dot)) i++;
    if (i === 0) fail('mail: invalid string');
    const atom = cps.slice(0, i).join('');
    this.s = cps.slice(i).join('');
    // permissive (display names): leading, trailing and double dots allowed (golang.org/issue/4938)
    if (!permissive && (atom.startsWith('.') || atom.includes('..') || atom.endsWith('.'))) fail('mail: dot in atom');
    return atom;
  }

  /** `[dtext]` that Go's net.ParseIP reads as an address (dotted IPv4 without leading zeros, or IPv6 without zone). */
  private consumeDomainLiteral(): string {
    if (!this.consume('[')) fail('mail: missing "[" in domain-literal');
    const cps = [...this.s];
    let i = 0;
    for (; ; i++) {
      if (i >= cps.length) fail('mail: unclosed domain-literal');
      if (cps[i] === ']') break;
      if (!isDtext(cps[i])) fail('mail: bad character in domain-literal');
    }
    const dtext = cps.slice(0, i).join('');
    this.s = cps.slice(i + 1).join('');
    if (isIP(dtext) === 0 || dtext.includes('%')) fail('mail: invalid IP address in domain-literal');
    return `[${dtext}]`;
  }

  private consumeDisplayNameComment(): void {
    if (!this.consume('(')) fail('mail: comment does not start with (');
    const { comment, ok } = this.consumeComment();
    if (!ok) fail('mail: misformatted parenthetical comment');
    for (const word of comment.split(/[ \t]+/).filter((w) => w !== '')) decodeEncodedWord(word);
  }

  public skipCFWS(): boolean {
    this.skipSpace();
    while (this.consume('(')) {
      if (!this.consumeComment().ok) return false;
      this.skipSpace();
    }
    return true;
  }

  /** After '(': up to the matching ')', with backslash escapes and nesting. */
  private consumeComment(): { comment: string; ok: boolean } {
    let depth = 1;
    let comment = '';
    while (!this.empty() && depth !== 0) {
      if (this.peek() === '\\' && this.s.length > 1) this.s = this.s.slice(1);
      else if (this.peek() === '(') depth++;
      else if (this.peek() === ')') depth--;
      if (depth > 0) comment += this.s[0];
      this.s = this.s.slice(1);
    }
    return { comment, ok: depth === 0 };
  }
}

/**
 * `decodeRFC2047Word` with the parser's decoder: an encoded word (`=?charset?B|Q?text?=`) in a charset other than
 * UTF-8, ISO-8859-1 or US-ASCII is an error (no charset reader); malformed encoded words count as plain words.
 */
function decodeEncodedWord(word: string): string {
  if (word.length < 8 || !word.startsWith('=?') || !word.endsWith('?=') || word.split('?').length !== 5) return word;
  const [charset, encoding, text] = word.slice(2, -2).split('?');
  if (charset === '' || encoding.length !== 1) return word;
  if (!decodes(encoding, text)) return word;
  if (!['utf-8', 'iso-8859-1', 'us-ascii'].includes(charset.toLowerCase())) fail(`charset not supported: ${charset}`);
  return word;
}

/** Whether mime's `decode` accepts the encoded text: standard base64 (padded) for B, Q-encoding for Q. */
function decodes(encoding: string, text: string): boolean {
  switch (encoding) {
    case 'B':
    case 'b':
      return /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(text);
    case 'Q':
    case 'q':
      return isQEncoded(text);
    default:
      return false;
  }
}

/** mime's qDecode: `=` followed by two hex digits, `_`, or printable ASCII, space, tab, CR and LF. */
function isQEncoded(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (text[i] === '=') {
      if (i + 2 >= text.length || !/^[0-9A-Fa-f]{2}$/.test(text.slice(i + 1, i + 3))) return false;
      i += 2;
    } else if (!((c <= 126 && c >= 32) || c === 10 || c === 13 || c === 9)) {
      return false;
    }
  }
  return true;
}

/** RFC 5322 atext (with `.` when dot; never the specials), and any non-ASCII code point. */
function isAtext(r: string, dot: boolean): boolean {
  if (r === '.') return dot;
  return !SPECIALS.includes(r) && isVchar(r);
}

const SPECIALS = '()<>[]:;@\\,"';

/** dtext: visible ASCII but `[`, `]` and backslash, or non-ASCII. */
function isDtext(r: string): boolean {
  return r !== '[' && r !== ']' && r !== '\\' && isVchar(r);
}

function isQtext(r: string): boolean {
  return r !== '\\' && r !== '"' && isVchar(r);
}

/** Visible ASCII or a multi-byte UTF-8 character (RFC 6532). */
function isVchar(r: string): boolean {
  const c = r.codePointAt(0)!;
  return (c >= 0x21 && c <= 0x7e) || c >= 0x80;
}

function isWSP(r: string): boolean {
  return r === ' ' || r === '\t';
}
