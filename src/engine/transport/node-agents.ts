// Node's http/https agents for clients that take them (the AWS SDK's NodeHttpHandler): the same TLS options and the
// same proxy decision as the API client (connection.ts). Through a proxy, https-proxy-agent tunnels (CONNECT) and
// http-proxy-agent sends http requests in absolute form, as undici does; an agent-base agent picks per request, by
// NO_PROXY, between them and a direct agent. The proxy packages (about 45 ms of imports) load only when a proxy is set.
import http from 'node:http';
import https from 'node:https';
import type { ProxySettings } from '../config/config.ts';
import { hasProxy, proxyFor, type TlsOptions } from './connection.ts';

export interface ProxyAgentClasses {
  Agent: typeof import('agent-base').Agent;
  HttpProxyAgent: typeof import('http-proxy-agent').HttpProxyAgent;
  HttpsProxyAgent: typeof import('https-proxy-agent').HttpsProxyAgent;
}

let loading: Promise<ProxyAgentClasses> | undefined;

/** The proxy agent classes, imported on first use (once per process). */
export function loadProxyAgentClasses(): Promise<ProxyAgentClasses> {
  loading ??= Promise.all([import('agent-base'), import('http-proxy-agent'), import('https-proxy-agent')]).then(([a, h, s]) => ({ Agent: a.Agent, HttpProxyAgent: h.HttpProxyAgent, HttpsProxyAgent: s.HttpsProxyAgent }));
  return loading;
}

export interface NodeAgentSettings {
  tls: TlsOptions;
  /** Absent, or with no proxy in it: direct agents. */
  proxy?: ProxySettings;
  /** Needed when a proxy is set: loadProxyAgentClasses()'s answer. */
  classes?: ProxyAgentClasses;
}

export interface NodeAgents {
  httpAgent: http.Agent;
  httpsAgent: http.Agent;
}

/** Keep-alive and socket cap as the AWS SDK's own default agents. */
const POOL = { keepAlive: true, maxSockets: 50 };

/** A fresh pair of agents (a client that is destroyed destroys its agents, so none is shared). */
export function nodeAgents(settings: NodeAgentSettings): NodeAgents {
  const directHttp = new http.Agent(POOL);
  const directHttps = new https.Agent({ ...POOL, ...settings.tls });
  if (!hasProxy(settings.proxy)) return { httpAgent: directHttp, httpsAgent: directHttps };
  if (!settings.classes) throw new Error('a proxy is set but its agent classes were not loaded (loadProxyAgentClasses)');
  const { Agent, HttpProxyAgent, HttpsProxyAgent } = settings.classes;
  const proxy = settings.proxy;
  // One agent per proxy URL and kind, made on first use.
  const viaProxy = new Map<string, http.Agent>();
  const proxyAgent = (proxyUrl: string, secureTarget: boolean): http.Agent => {
    // Absolute form only when both the target and the proxy speak plain http, as undici's ProxyAgent decides.
    const absoluteForm = !secureTarget && new URL(proxyUrl).protocol === 'http:';
    const key = `${absoluteForm ? 'absolute' : 'tunnel'} ${proxyUrl}`;
    let agent = viaProxy.get(key);
    if (!agent) {
      agent = absoluteForm ? new HttpProxyAgent(proxyUrl, POOL) : new HttpsProxyAgent(proxyUrl, { ...POOL, ...settings.tls });
      viaProxy.set(key, agent);
    }
    return agent;
  };

  // No pool of its own (every request is handed to another agent), so no cap to queue behind either. Its options are
  // merged into each request's, which is where https-proxy-agent takes the target's TLS options from; keepAlive is
  // what lets the request keep its socket (and its tunnel) for the next one.
  const routerOptions = (secure: boolean): https.AgentOptions => ({ keepAlive: true, ...(secure ? settings.tls : {}) });
  class ProxyRouter extends Agent {
    constructor(
      private readonly direct: http.Agent,
      private readonly secure: boolean,
    ) {
      super(routerOptions(secure));
      this.protocol = secure ? 'https:' : 'http:';
    }
    // Known, not guessed from the call stack as agent-base would (a queued request is created off it).
    override isSecureEndpoint(): boolean {
      return this.secure;
    }
    connect(_req: http.ClientRequest, opts: { host?: string; port: number }): http.Agent {
      const name = opts.host ?? 'localhost';
      const host = name.includes(':') ? `[${name}]` : name;
      const via = proxyFor(`${this.secure ? 'https' : 'http'}://${host}:${opts.port}`, proxy);
      return via ? proxyAgent(via, this.secure) : this.direct;
    }
    override destroy(): void {
      this.direct.destroy();
      for (const a of viaProxy.values()) a.destroy();
      super.destroy();
    }
  }
  return { httpAgent: new ProxyRouter(directHttp, false), httpsAgent: new ProxyRouter(directHttps, true) };
}
