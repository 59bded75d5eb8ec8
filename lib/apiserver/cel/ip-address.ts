import { isIPv4, isIPv6 } from 'net';

/** An IP address for the Kubernetes CEL `ip()` / `cidr()` libraries, as a 32- or 128-bit integer. */
export class IpAddress {
  /** Parses an IPv4 or IPv6 address; rejects IPv4 with leading zeros and IPv4-mapped IPv6 like the apiserver. */
  public static parse(text: string): IpAddress {
    if (isIPv4(text)) {
      if (text.split('.').some((p) => p.length > 1 && p.startsWith('0'))) {
        throw new Error(`IP address '${text}' has leading zeros`);
      }
      return new IpAddress(
        4,
        text.split('.').reduce((acc, p) => (acc << 8n) | BigInt(p), 0n),
      );
    }
    if (isIPv6(text) && !text.includes('%')) {
      const value = ipv6ToBigInt(text);
      // netip's Is4In6: any spelling of ::ffff:a.b.c.d (::ffff:7f00:1 too)
      if (value >> 32n === 0xffffn) throw new Error(`IPv4-mapped IPv6 address '${text}' is not allowed`);
      return new IpAddress(6, value);
    }
    throw new Error(`IP Address '${text}' parse error during conversion from string`);
  }

  public static isValid(text: string): boolean {
    try {
      IpAddress.parse(text);
      return true;
    } catch {
      return false;
    }
  }

  constructor(
    public readonly family: 4 | 6,
    public readonly value: bigint,
  ) {}

  public get bits(): number {
    return this.family === 4 ? 32 : 128;
  }

  public isUnspecified(): boolean {
    return this.value === 0n;
  }

  public isLoopback(): boolean {
    return this.family === 4 ? this.value >> 24n === 127n : this.value === 1n;
  }

  public isLinkLocalUnicast(): boolean {
    return this.family === 4 ? this.value >> 16n === 0xa9fen : this.value >> 118n === 0x3fan;
  }

  public isLinkLocalMulticast(): boolean {
    return this.family === 4 ? this.value >> 8n === 0xe00000n : this.value >> 112n === 0xff02n;
  }

  public isGlobalUnicast(): boolean {
    const multicast = this.family === 4 ? this.value >> 28n === 0xen : this.value >> 120n === 0xffn;
    const broadcast = this.family === 4 && this.value === 0xffffffffn;
    return !(this.isUnspecified() || this.isLoopback() || multicast || broadcast || this.isLinkLocalUnicast());
  }

  public toString(): string {
    if (this.family === 4) return [24n, 16n, 8n, 0n].map((s) => ((this.value >> s) & 255n).toString()).join('.');
    const groups = Array.from({ length: 8 }, (_, i) => ((this.value >> BigInt(112 - 16 * i)) & 0xffffn).toString(16));
    // RFC 5952: compress the longest run (>= 2) of zero groups
    let best = -1;
    let bestLen = 1;
    for (let i = 0; i < 8;) {
      let j = i;
      while (j < 8 && groups[j] === '0') j++;
      if (j - i > bestLen) [best, bestLen] = [i, j - i];
      i = j === i ? i + 1 : j;
    }
    if (best < 0) return groups.join(':');
    return `${groups.slice(0, best).join(':')}::${groups.slice(best + bestLen).join(':')}`;
  }
}

/** A CIDR prefix for the Kubernetes CEL `cidr()` library. */
export class Cidr {
  /** `netip.ParsePrefix`: the address before the last `/`, then bits without sign or leading zero (`0` itself is fine). */
  public static parse(text: string): Cidr {
    const slash = text.lastIndexOf('/');
    const len = slash < 0 ? '' : text.slice(slash + 1);
    if (slash < 0 || !/^(0|[1-9][0-9]*)$/.test(len)) {
      throw new Error(`network address parse error during conversion from string: '${text}'`);
    }
    const ip = IpAddress.parse(text.slice(0, slash));
    const prefix = Number(len);
    if (prefix > ip.bits) throw new Error(`network address parse error during conversion from string: '${text}'`);
    return new Cidr(ip, prefix);
  }

  public static isValid(text: string): boolean {
    try {
      Cidr.parse(text);
      return true;
    } catch {
      return false;
    }
  }

  constructor(
    public readonly ip: IpAddress,
    public readonly prefixLength: number,
  ) {}

  public masked(): Cidr {
    const hostBits = BigInt(this.ip.bits - this.prefixLength);
    return new Cidr(new IpAddress(this.ip.family, (this.ip.value >> hostBits) << hostBits), this.prefixLength);
  }

  public containsIp(ip: IpAddress): boolean {
    if (ip.family !== this.ip.family) return false;
    const hostBits = BigInt(this.ip.bits - this.prefixLength);
    return ip.value >> hostBits === this.ip.value >> hostBits;
  }

  public containsCidr(other: Cidr): boolean {
    return other.prefixLength >= this.prefixLength && this.containsIp(other.ip);
  }

  public toString(): string {
    return `${this.ip}/${this.prefixLength}`;
  }
}

function ipv6ToBigInt(text: string): bigint {
  let [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const toGroups = (s: string | undefined): string[] => {
    if (!s) return [];
    const parts = s.split(':');
    const last = parts[parts.length - 1];
    if (last.includes('.')) {
      const v4 = last.split('.').map(Number);
      parts.splice(parts.length - 1, 1, ((v4[0] << 8) | v4[1]).toString(16), ((v4[2] << 8) | v4[3]).toString(16));
    }
    return parts;
  };
  const h = toGroups(head);
  const t = toGroups(tail);
  const groups = tail === undefined ? h : [...h, ...Array(8 - h.length - t.length).fill('0'), ...t];
  return groups.reduce((acc, g) => (acc << 16n) | BigInt(parseInt(g, 16)), 0n);
}
