type Fetch = (request: Request) => Response | Promise<Response>;

/** The host names this machine answers to as itself: the Host check and the Origin check (localAuth.ts) take the same. */
export const LOOPBACK_NAMES: ReadonlySet<string> = new Set(["127.0.0.1", "localhost", "[::1]"]);

/**
 * Serve only requests addressed to this machine by name. Listening on
 * 127.0.0.1 keeps other machines out, but a web page can still rebind its own
 * domain to 127.0.0.1 (DNS rebinding) and reach the server same-origin; such a
 * request carries that domain in Host, and is refused here.
 */
export function loopbackOnly(fetch: Fetch, port: () => number): Fetch {
  return (request) => {
    const host = request.headers.get("host") ?? "";
    const at = host.lastIndexOf(":");
    const name = at > host.lastIndexOf("]") ? host.slice(0, at) : host;
    const hostPort = at > host.lastIndexOf("]") ? host.slice(at + 1) : "80";
    if (LOOPBACK_NAMES.has(name.toLowerCase()) && hostPort === String(port())) return fetch(request);
    const message = `this server answers only requests to 127.0.0.1:${port()} or localhost:${port()}, not ${JSON.stringify(host)}`;
    return Response.json({ error: { code: "forbidden_host", message } }, { status: 403 });
  };
}
