/** Seeded ids: the same world and the same requests give the same answers. */
export interface IdSource {
  /** `cmp` -> `cmp_0001`, `cmp_0002`, ... one counter per prefix. */
  next(prefix: string): string;
  /** A 40-hex-digit commit hash from the seeded generator. */
  commitHash(): string;
  /** A numeric id such as an ad platform's campaign id. */
  digits(length: number): string;
}

export function createIds(seed: number): IdSource {
  const counters = new Map<string, number>();
  const random = mulberry32(seed);
  return {
    next(prefix) {
      const n = (counters.get(prefix) ?? 0) + 1;
      counters.set(prefix, n);
      return `${prefix}_${String(n).padStart(4, '0')}`;
    },
    commitHash: () => Array.from({ length: 40 }, () => Math.floor(random() * 16).toString(16)).join(''),
    digits: (length) => Array.from({ length }, (_, i) => Math.floor(random() * (i === 0 ? 9 : 10)) + (i === 0 ? 1 : 0)).join(''),
  };
}

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
