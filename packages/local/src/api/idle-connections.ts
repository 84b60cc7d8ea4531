/**
 * How long the local servers keep an idle keep-alive connection open. Node's default, 5 s, lost requests:
 * when the engine's thread is busy past a connection's deadline (a deploy, a large CreateStateMachine)
 * while a client's next request already waits in the socket, Node runs the expired keep-alive timer
 * before it reads the socket, closes the connection with the request unread, and the client gets
 * ECONNRESET ("socket hang up"). The deadline is therefore longer than any client reuses an idle
 * connection for: the SDK for JavaScript follows the server's `Keep-Alive: timeout` hint (less one
 * second), the SDK for Java keeps idle connections 60 s, load balancers such as ALB 60 s by default.
 */
import type { Server } from 'node:http';

/** A keep-alive connection idle this long is closed. */
export const IDLE_CONNECTION_MILLIS = 65_000;

/** Gives `server` the keep-alive deadline above, with the time for a request's headers just past it. */
export function keepIdleConnections(server: Server): Server {
  server.keepAliveTimeout = IDLE_CONNECTION_MILLIS;
  // A request's headers must be allowed as long as an idle connection (Node's own advice for servers behind
  // a keep-alive client): a shorter headersTimeout would cut a request arriving late in the idle window.
  server.headersTimeout = IDLE_CONNECTION_MILLIS + 1_000;
  return server;
}
