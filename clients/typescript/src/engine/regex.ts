// The regex dialect of `regex` params, matched in time linear in the value's length (a
// Pike VM over code points), never by the platform's backtracking RegExp: the contract
// accepts patterns such as `[a-z]*[a-z]*[a-z]*x` that RegExp takes polynomial time on.

import { MAX_PROGRAM_SIZE, Node, Parser, RegexError, ScalarSet } from "./regex-parser.js";

export { RegexError };

// Instructions, packed: op codes with their operands in parallel arrays.
const SCALAR = 0, ANY = 1, SET = 2, SPLIT = 3, JUMP = 4, ASSERT_START = 5, ASSERT_END = 6, MATCH = 7;

/** A compiled `regex` param: whole-value matching in linear time. */
export class SafeRegex {
  static readonly maxProgramSize = MAX_PROGRAM_SIZE;
  /** Values longer than this many code points never match. */
  static readonly maxInputLength = 1024;

  private readonly op: number[] = [];
  private readonly a: number[] = [];
  private readonly b: number[] = [];
  private readonly sets: (ScalarSet | null)[] = [];

  constructor(readonly pattern: string) {
    this.emit(Parser.parse(pattern));
    this.push(MATCH, 0, 0);
  }

  private push(op: number, a: number, b: number, set: ScalarSet | null = null): number {
    this.op.push(op);
    this.a.push(a);
    this.b.push(b);
    this.sets.push(set);
    return this.op.length - 1;
  }

  private emit(n: Node): void {
    if (this.op.length > SafeRegex.maxProgramSize) throw new RegexError("tooLarge", "");
    switch (n.k) {
      case "empty": break;
      case "scalar": this.push(SCALAR, n.v, 0); break;
      case "any": this.push(ANY, 0, 0); break;
      case "set": this.push(SET, 0, 0, n.set); break;
      case "start": this.push(ASSERT_START, 0, 0); break;
      case "end": this.push(ASSERT_END, 0, 0); break;
      case "concat": for (const x of n.nodes) this.emit(x); break;
      case "alt": {
        const jumps: number[] = [];
        n.nodes.forEach((branch, k) => {
          if (k < n.nodes.length - 1) {
            const split = this.push(SPLIT, 0, 0);
            this.a[split] = split + 1;
            this.emit(branch);
            jumps.push(this.push(JUMP, 0, 0));
            this.b[split] = this.op.length;
          } else {
            this.emit(branch);
          }
        });
        for (const j of jumps) this.a[j] = this.op.length;
        break;
      }
      case "rep": {
        for (let i = 0; i < n.min; i++) this.emit(n.node);
        if (n.max !== null) {
          const exits: number[] = [];
          for (let i = n.min; i < n.max; i++) {
            const e = this.push(SPLIT, 0, 0);
            this.a[e] = e + 1;
            exits.push(e);
            this.emit(n.node);
          }
          for (const e of exits) this.b[e] = this.op.length;
        } else {
          const loop = this.push(SPLIT, 0, 0);
          this.a[loop] = loop + 1;
          this.emit(n.node);
          this.push(JUMP, loop, 0);
          this.b[loop] = this.op.length;
        }
        break;
      }
    }
    if (this.op.length > SafeRegex.maxProgramSize) throw new RegexError("tooLarge", "");
  }

  /** Whether the whole of `value` matches. */
  matches(value: string): boolean {
    const input: number[] = [];
    for (const ch of value) {
      input.push(ch.codePointAt(0) as number);
      if (input.length > SafeRegex.maxInputLength) return false;
    }
    const size = this.op.length;
    let current = new ThreadList(size), next = new ThreadList(size);
    this.addThread(current, 0, 0, input.length);
    for (let position = 0; position < input.length; position++) {
      if (current.count === 0) return false;
      next.clear();
      const scalar = input[position];
      for (let t = 0; t < current.count; t++) {
        const pc = current.items[t];
        const op = this.op[pc];
        if ((op === SCALAR && this.a[pc] === scalar) || op === ANY || (op === SET && (this.sets[pc] as ScalarSet).contains(scalar))) {
          this.addThread(next, pc + 1, position + 1, input.length);
        }
      }
      const swap = current;
      current = next;
      next = swap;
    }
    for (let t = 0; t < current.count; t++) if (this.op[current.items[t]] === MATCH) return true;
    return false;
  }

  private addThread(list: ThreadList, start: number, position: number, count: number): void {
    const pending = [start];
    while (pending.length > 0) {
      const pc = pending.pop() as number;
      if (!list.insert(pc)) continue;
      switch (this.op[pc]) {
        case JUMP: pending.push(this.a[pc]); break;
        case SPLIT: pending.push(this.b[pc], this.a[pc]); break;
        case ASSERT_START: if (position === 0) pending.push(pc + 1); break;
        case ASSERT_END: if (position === count) pending.push(pc + 1); break;
      }
    }
  }
}

class ThreadList {
  readonly items: Int32Array;
  private readonly present: Uint8Array;
  count = 0;

  constructor(capacity: number) {
    this.items = new Int32Array(capacity);
    this.present = new Uint8Array(capacity);
  }

  insert(pc: number): boolean {
    if (this.present[pc]) return false;
    this.present[pc] = 1;
    this.items[this.count++] = pc;
    return true;
  }

  clear(): void {
    for (let i = 0; i < this.count; i++) this.present[this.items[i]] = 0;
    this.count = 0;
  }
}
