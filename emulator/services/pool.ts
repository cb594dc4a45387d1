/**
 * Listeners bound ahead of need. Node binds a port one tick after `listen`, even on an IP
 * address, but a pod's answer must name its ports the moment it is read, and never a port
 * nothing listens on: so a few listeners wait here, bound, to be handed out synchronously, and
 * each one taken is replaced in the background. When the pool runs dry (many pods read at
 * once), the caller binds one of its own and reports no port until it is bound.
 */
import { Listener } from "./listener";

export class ListenerPool {
  private readonly ready: Listener[] = [];
  private readonly binding = new Set<Promise<unknown>>();
  private closed = false;

  constructor(private readonly size: number) {}

  /** Binds listeners until `size` are ready or on their way. */
  fill(): void {
    while (!this.closed && this.ready.length + this.binding.size < this.size) {
      // A failed bind (no file descriptor left) is not retried here: the next `take` tries again.
      const bound = Listener.bind().then(
        async (listener) => {
          if (this.closed) await listener.close();
          else this.ready.push(listener);
        },
        () => undefined,
      );
      this.track(bound);
    }
  }

  /** A bound listener now, if one is ready. */
  take(): Listener | undefined {
    const listener = this.ready.shift();
    this.fill();
    return listener;
  }

  /** A listener of its own for the caller, once bound; undefined if binding failed or the pool closed meanwhile. */
  bindOne(): Promise<Listener | undefined> {
    const bound = Listener.bind().then(
      async (listener) => {
        if (!this.closed) return listener;
        await listener.close();
        return undefined;
      },
      () => undefined,
    );
    this.track(bound);
    return bound;
  }

  /** Closes the ready listeners and those still binding; resolves once every port is free. */
  async close(): Promise<void> {
    this.closed = true;
    const closing = this.ready.splice(0).map((listener) => listener.close());
    await Promise.all([...closing, ...this.binding]);
  }

  private track(binding: Promise<unknown>): void {
    this.binding.add(binding);
    void binding.finally(() => this.binding.delete(binding));
  }
}
