/**
 * The one way dml listens on a socket: {@link dev.dml.ray.net.GuardedServer} accepts a capped
 * number of connections, gives each a bounded time to prove it belongs (a token compared in
 * constant time), and only then serves it; {@link dev.dml.ray.net.Frames} caps what a length
 * prefix may claim. The collectives' endpoints, the parameter servers and the kernel's driver
 * channel all listen through it.
 */
package dev.dml.ray.net;
