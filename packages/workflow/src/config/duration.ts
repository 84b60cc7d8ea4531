/** A length of time. Build one with {@link seconds}, {@link minutes}, {@link hours} or {@link days}. */
export interface Duration {
  readonly seconds: number;
}

export const seconds = (n: number): Duration => ({ seconds: n });
export const minutes = (n: number): Duration => ({ seconds: n * 60 });
export const hours = (n: number): Duration => ({ seconds: n * 3600 });
export const days = (n: number): Duration => ({ seconds: n * 86_400 });

/** Milliseconds in a duration, for clocks and timers. */
export const toMillis = (d: Duration): number => d.seconds * 1000;
