/** One thing `stop()` stops (a server, a store, a client, a lock). */
export type Stop = () => Promise<void> | void;

/**
 * What `stop()` (and a start that fails) runs: everything `startLocal` started, in two lists, each stopped in the
 * reverse order of its adding, those added with {@link Shutdown.first} before those added with {@link Shutdown.add}.
 */
export class Shutdown {
  private readonly stops: Stop[];
  // The engine and the handler binding stop before anything the engine's runs reach (functions, services).
  private readonly stopsFirst: Stop[] = [];

  /** `initial` stops last (the data directory's lock). */
  constructor(...initial: Stop[]) {
    this.stops = [...initial];
  }

  /** Stops after every {@link first}, in the reverse order of their adding. */
  add(...stops: Stop[]): void {
    this.stops.push(...stops);
  }

  /** Stops before every {@link add}, in the reverse order of their adding. */
  first(...stops: Stop[]): void {
    this.stopsFirst.push(...stops);
  }

  /** Runs every stop once (an error is logged, and the next stop runs); a second call finds none left. */
  readonly stopAll = async (): Promise<void> => {
    for (const stop of [...this.stopsFirst.reverse(), ...this.stops.reverse()]) {
      try {
        await stop();
      } catch (err) {
        console.error('autosave local: error while stopping:', err);
      }
    }
    this.stops.length = 0;
    this.stopsFirst.length = 0;
  };
}
