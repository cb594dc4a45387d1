/**
 * One listening socket on the loopback interface, and the connections it accepted. Whoever holds
 * the listener decides what each connection gets, when it arrives (`serve`); until then, and
 * once closed, a connection is refused. Closing the listener destroys its open connections too,
 * so a stopped pod leaves nothing answering and the emulator leaves no open handle behind.
 */
import { createServer, type AddressInfo, type Server, type Socket } from "node:net";

/** Every service listens here and only here: nothing the emulator opens is reachable from another machine. */
export const LOOPBACK = "127.0.0.1";

export type ConnectionHandler = (socket: Socket) => void;

/**
 * What a port mapping with nothing behind it does (a container runtime's port proxy whose
 * container does not listen yet): the connection is accepted, then reset at once, before any data.
 */
export const refuse: ConnectionHandler = (socket) => {
  socket.resetAndDestroy();
};

export class Listener {
  private handler: ConnectionHandler = refuse;
  private readonly open = new Set<Socket>();
  private closing: Promise<void> | undefined;

  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  /** A new listener on a free port of `LOOPBACK`; the port is known once this resolves (Node binds a tick after `listen`). */
  static bind(): Promise<Listener> {
    return new Promise((resolve, reject) => {
      const server = createServer();
      server.once("error", reject);
      server.listen(0, LOOPBACK, () => {
        server.off("error", reject);
        // Past this point errors belong to single connections, which end on their own.
        server.on("error", () => undefined);
        // The emulator's HTTP server keeps the process alive; its services should not on their own.
        server.unref();
        const listener = new Listener(server, (server.address() as AddressInfo).port);
        server.on("connection", (socket) => listener.accept(socket));
        resolve(listener);
      });
    });
  }

  /** What connections get from now on. */
  serve(handler: ConnectionHandler): void {
    this.handler = handler;
  }

  /** Ends the connections open now (the service's settings changed); the port keeps listening. */
  dropConnections(): void {
    for (const socket of this.open) socket.destroy();
  }

  /** Stops listening and ends every open connection; resolves once the port is free. */
  close(): Promise<void> {
    if (!this.closing) {
      this.closing = new Promise((resolve) => this.server.close(() => resolve()));
      this.dropConnections();
    }
    return this.closing;
  }

  private accept(socket: Socket): void {
    // A client that resets or vanishes is its own affair, never an error of the emulator.
    socket.on("error", () => undefined);
    socket.unref();
    if (this.closing) {
      socket.destroy();
      return;
    }
    this.open.add(socket);
    socket.once("close", () => this.open.delete(socket));
    this.handler(socket);
  }
}
