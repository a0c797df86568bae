// A clock the updater waits on (its `timers` option) that moves only when a test says:
// the updater's pauses, backoffs and timeouts are read and run without waiting for them.
"use strict";

class FakeClock {
  constructor(start = Date.UTC(2026, 10, 28, 12, 0, 0)) {
    this.time = start;
    this.timers = new Map();
    this.nextID = 1;
  }

  now() {
    return this.time;
  }

  setTimeout(callback, ms) {
    const id = this.nextID++;
    this.timers.set(id, { at: this.time + ms, ms, callback });
    return id;
  }

  clearTimeout(id) {
    this.timers.delete(id);
  }

  /** The delays the pending timers were set with, soonest first. */
  pending() {
    return Array.from(this.timers.values()).sort((a, b) => a.at - b.at).map((t) => t.ms);
  }

  /** Moves time on by `ms`, running each timer that falls due, in order. */
  advance(ms) {
    const end = this.time + ms;
    for (;;) {
      let due = null;
      for (const [id, timer] of this.timers) if (timer.at <= end && (due === null || timer.at < due[1].at)) due = [id, timer];
      if (due === null) break;
      this.timers.delete(due[0]);
      this.time = due[1].at;
      due[1].callback();
    }
    this.time = end;
  }
}

module.exports = { FakeClock };
