// Node's http/https agents for clients that take them (the AWS SDK's NodeHttpHandler): the same TLS options and the
// same proxy decision as the API client (connection.ts). Through a proxy, https-proxy-agent tunnels (CONNECT) and
// http-proxy-agent sends http requests in absolute form, as undici does; a router agent hands each request, by
// NO_PROXY, to one of them or to a direct agent. The proxy packages (about 45 ms of imports) load only when a proxy is set.
import http from 'node:http';
import https from 'node:https';
import type { ProxySettings } from '../config/config.ts';
import { hasProxy, proxyFor, proxyTlsOf, requestTlsOf, type TlsOptions } from './connection.ts';

export interface ProxyAgentClasses {
  HttpProxyAgent: typeof import('http-proxy-agent').HttpProxyAgent;
  HttpsProxyAgent: typeof import('https-proxy-agent').HttpsProxyAgent;
}

let loading: Promise<ProxyAgentClasses> | undefined;

/** The proxy agent classes, imported on first use (once per process). */
export function loadProxyAgentClasses(): Promise<ProxyAgentClasses> {
  loading ??= Promise.all([import('http-proxy-agent'), import('https-proxy-agent')]).then(([h, s]) => ({
    HttpProxyAgent: h.HttpProxyAgent,
    HttpsProxyAgent: s.HttpsProxyAgent,
  }));
  return loading;
}

export interface NodeAgentSettings {
  tls: TlsOptions;
  /** Absent, or with no proxy in it: direct agents. */
  proxy?: ProxySettings;
  /** Needed when a proxy is set: loadProxyAgentClasses()'s answer. */
  classes?: ProxyAgentClasses;
}

interface NodeAgents {
  httpAgent: http.Agent;
  httpsAgent: http.Agent;
}

/**
 * True when requests to `endpoint` may go through a proxy in absolute form (an http endpoint, an http proxy). Such
 * requests must not carry Expect: 100-continue: Node writes a head with that header at once, before http-proxy-agent
 * rewrites its path, which then goes out relative (or twice), and the proxy refuses it.
 */
export function absoluteFormProxy(endpoint: string, proxy: ProxySettings | undefined): boolean {
  return new URL(endpoint).protocol === 'http:' && !!proxy?.httpProxy && new URL(proxy.httpProxy).protocol === 'http:';
}

/** Keep-alive and socket cap as the AWS SDK's own default agents. */
const POOL = { keepAlive: true, maxSockets: 50 };

/** A fresh pair of agents (a client that is destroyed destroys its agents, so none is shared). */
export function nodeAgents(settings: NodeAgentSettings): NodeAgents {
  const directHttp = new http.Agent(POOL);
  const targetTls = requestTlsOf(settings.tls);
  const directHttps = new https.Agent({ ...POOL, ...targetTls });
  if (!hasProxy(settings.proxy)) return { httpAgent: directHttp, httpsAgent: directHttps };
  if (!settings.classes)
    throw new Error('a proxy is set but its agent classes were not loaded (loadProxyAgentClasses)');
  const { HttpProxyAgent, HttpsProxyAgent } = settings.classes;
  const proxy = settings.proxy;
  // One agent per proxy URL and kind, made on first use.
  const viaProxy = new Map<string, http.Agent>();
  const proxyAgent = (proxyUrl: string, secureTarget: boolean): http.Agent => {
    // Absolute form only when both the target and the proxy speak plain http, as undici's ProxyAgent decides.
    const absoluteForm = !secureTarget && new URL(proxyUrl).protocol === 'http:';
    const key = `${absoluteForm ? 'absolute' : 'tunnel'} ${proxyUrl}`;
    let agent = viaProxy.get(key);
    if (!agent) {
      // The agent's own options are for the connection to the proxy; the target's TLS options come with each request.
      agent = absoluteForm
        ? new HttpProxyAgent(proxyUrl, { ...POOL, ...proxyTlsOf(settings.tls) })
        : new HttpsProxyAgent(proxyUrl, { ...POOL, ...proxyTlsOf(settings.tls) });
      viaProxy.set(key, agent);
    }
    return agent;
  };

  // Hands each request, as it is made, to the direct agent or a proxy's: synchronously, before the request writes its
  // head (http-proxy-agent rewrites the path to absolute form then). keepAlive lets a request keep its socket (and
  // tunnel) for the next one; the TLS options join the request's, where https-proxy-agent takes the target's from.
  type Handoff = { addRequest(req: http.ClientRequest, options: object): void };
  const route =
    (secure: boolean, direct: http.Agent) => (req: http.ClientRequest, options: { host?: string; port?: number }) => {
      const name = options.host ?? 'localhost';
      const host = name.includes(':') ? `[${name}]` : name;
      const via = proxyFor(`${secure ? 'https' : 'http'}://${host}:${options.port ?? (secure ? 443 : 80)}`, proxy);
      const agent = (via ? proxyAgent(via, secure) : direct) as unknown as Handoff;
      agent.addRequest(req, { ...options, ...(secure ? targetTls : {}), secureEndpoint: secure });
    };
  const destroyAll = () => {
    directHttp.destroy();
    directHttps.destroy();
    for (const a of viaProxy.values()) a.destroy();
  };
  class HttpRouter extends http.Agent {
    addRequest = route(false, directHttp);
    override destroy(): void {
      destroyAll();
      super.destroy();
    }
  }
  class HttpsRouter extends https.Agent {
    addRequest = route(true, directHttps);
    override destroy(): void {
      destroyAll();
      super.destroy();
    }
  }
  return { httpAgent: new HttpRouter({ keepAlive: true }), httpsAgent: new HttpsRouter({ keepAlive: true }) };
}
