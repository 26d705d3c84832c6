// The overlay vocabulary, defined once as data: every x- term a target may declare (or the derived document carries),
// where it may appear, the JSON Schema of its value, what it means, an example and the checks that read it. The
// overlay validator (src/spec/overlay-check.ts), the reference in spec/README.md (test/spec/vocabulary.test.ts keeps
// them in agreement) and the declaration reader (src/spec/declarations.ts) all follow it.

/** Where in an OpenAPI document a term may sit. */
export type LocationKind =
  | 'document'
  | 'info'
  | 'path-item'
  | 'operation'
  | 'webhook-operation'
  | 'response'
  | 'media-type'
  | 'header'
  | 'link'
  | 'parameter'
  | 'request-body'
  | 'schema';

export interface Term {
  name: `x-${string}`;
  /** declaration: a target's choice, set in an overlay. annotation: a note of the derived document; overlays do not set it. */
  role: 'declaration' | 'annotation';
  where: LocationKind[];
  /** JSON Schema (draft 2020-12, ajv) of the value. */
  schema: Record<string, unknown>;
  meaning: string;
  /** A value as it would be written in an overlay (rendered as YAML in spec/README.md). */
  example: unknown;
  /** Ids of the checks whose verdict depends on it (empty: a record only). */
  checks: string[];
  /** Unshown items of spec/clauses.yaml it declares. */
  unshown?: string[];
}

/**
 * The closed list of error cases a target can declare in x-error-cases: each is a situation the suite provokes and
 * observes (the status and code it got are recorded under the same name, emitted by --emit-overlay and compared by
 * schema.declared-choices).
 */
export const ERROR_CASES: Record<string, string> = {
  unauthenticated: 'a request without a bearer token, or with one that is malformed (auth.bearer-required)',
  'invalid-api-key': 'token issuance with an API key the target does not know (auth.token-request-invalid)',
  'invalid-request':
    'a request the target cannot read or validate: a token request without api_key, a body that is not JSON (auth.token-request-invalid, errors.malformed-json)',
  'token-expired': 'a request with a token older than its lifetime (auth.token-expiry)',
  'key-revoked': 'a request with a token of a key the run revoked (security.revoked-key)',
  'method-not-allowed': 'a method a path does not have: PUT on a task (errors.allow-on-405)',
  'payload-too-large': 'a create with an 8 MiB body (security.oversized-body)',
  'unsupported-media-type': 'a create whose JSON body is labelled text/plain (vms.create-conventions)',
  forbidden: "a write by a key whose owner's role may only read (security.readonly-write-refused)",
  'not-found': 'a read of a task id that does not exist (errors.error-object)',
  'other-organization-object':
    "a read of another organization's object by its id: the run's task read with --api-key-b (security.cross-org-objects)",
  'other-organization-reference':
    "a create whose body names another organization's object: a VM on --subnet-id-b's subnet, asked for with the primary key (security.cross-org-reference)",
  'quota-exceeded':
    'a create beyond the organization quota (code quota_exceeded, seed §7), once a delete showed it a quota (vms.quota-refusal)',
  'rate-limited': 'a request beyond a rate limit (limits.rejection-error-object)',
};

/** Wall-clock seconds a target waits for a delivery's answer (x-webhook-retry timeout-seconds): a minute at most. */
const TIMEOUT_SECONDS = { type: 'number', exclusiveMinimum: 0, maximum: 60 };

/** A header name that ties the attempts of one event together (x-webhook-retry event-id-header). */
const EVENT_ID_HEADER = { type: 'string', pattern: '^[A-Za-z0-9-]+$' };

/** Families a declared event (an entry of the document's top-level webhooks) can belong to. */
const EVENT_FAMILIES = ['backup-job', 'metric-alarm', 'test'] as const;

/** Fields of an audit entry the audit checks read, each located by a JSON pointer (or a top-level field name). */
const AUDIT_FIELDS = ['id', 'actor', 'source-ip', 'result', 'path', 'status', 'method', 'time'] as const;

const str = { type: 'string', minLength: 1 };
const fieldOrPointer = { type: 'string', pattern: '^(/.*|[^/].*)$', minLength: 1 };
const errorPair = {
  type: 'object',
  additionalProperties: false,
  required: ['status'],
  properties: {
    status: { type: 'integer', minimum: 400, maximum: 599 },
    code: { type: 'string' },
    'retry-after': { type: 'boolean' },
  },
};
const placeholders = (allowed: readonly string[]) => ({
  type: 'string',
  minLength: 1,
  pattern: `^([^{}]|\\{(${allowed.join('|')})\\})*$`,
});

export const TERMS: Term[] = [
  // ---- info ----
  {
    name: 'x-error-cases',
    role: 'declaration',
    where: ['info'],
    schema: {
      type: 'object',
      propertyNames: { enum: Object.keys(ERROR_CASES) },
      additionalProperties: { oneOf: [errorPair, { type: 'array', minItems: 1, items: errorPair }] },
    },
    meaning:
      'the status and error code of each error case (closed list of case names); a case may list several status/code pairs, any of which is accepted',
    example: {
      'invalid-request': [
        { status: 400, code: 'invalid_json' },
        { status: 422, code: 'validation_error' },
      ],
      'rate-limited': { status: 429, code: 'rate_limited', 'retry-after': true },
    },
    checks: ['schema.declared-choices'],
    unshown: ['U-ERROR-STATUS', 'U-ERROR-CODES', 'U-LIMIT-BEHAVIOUR'],
  },
  {
    name: 'x-rate-limit-accounting',
    role: 'declaration',
    where: ['info'],
    schema: {
      type: 'object',
      additionalProperties: false,
      minProperties: 1,
      properties: {
        refused: { enum: ['counted', 'free'] },
        'retry-after-clock': { enum: ['target', 'wall'] },
        window: { enum: ['fixed', 'sliding'] },
      },
    },
    meaning:
      "how the rate limits are counted. refused: whether a read or write the target refuses (4xx other than 429) spends the budget (counted) or not (free); the write probe sends creates with an empty body, so with counted it is held to 60 without creating anything. retry-after-clock: whether Retry-After counts the target's seconds (target, the default) or wall-clock seconds (wall); they differ only for a target whose clock runs faster, as the reference's under --time-scale. window: whether a budget comes back whole when a window ends (fixed) or each request a window after it was made (sliding); limits.window-resets (full profile) spends a budget in two halves half a window apart and counts what a window after the first half serves",
    example: { refused: 'counted', 'retry-after-clock': 'target', window: 'fixed' },
    checks: ['limits.write-limit', 'limits.window-resets'],
    unshown: ['U-LIMIT-BEHAVIOUR'],
  },
  {
    name: 'x-generated-by',
    role: 'declaration',
    where: ['info'],
    schema: { type: 'string' },
    meaning: 'the tool and run that emitted the overlay (--emit-overlay); a record for the reviewer, read by no check',
    example: 'cloud-api-conformance 0.1.0, run 1a2b3c4d',
    checks: [],
  },
  // ---- responses ----
  {
    name: 'x-total-count',
    role: 'declaration',
    where: ['response'],
    schema: {
      type: 'object',
      additionalProperties: false,
      properties: { field: { type: ['string', 'null'] }, required: { type: 'boolean' } },
    },
    meaning:
      'the field of a list response that carries the total count of matching items (the VM list, the audit search); dotted names reach into objects',
    example: { required: true, field: 'total' },
    checks: ['pagination.total', 'vms.stateful', 'audit.logged'],
    unshown: ['U-TOTAL-FIELD-NAME'],
  },
  // ---- schemas ----
  {
    name: 'x-state-field',
    role: 'declaration',
    where: ['schema'],
    schema: str,
    meaning: 'on components.schemas.Task: the field that holds the task state',
    example: 'status',
    checks: ['tasks.reaches-terminal', 'tasks.terminal-stable', 'vms.stateful', 'backups.restore-task'],
    unshown: ['U-STATES'],
  },
  {
    name: 'x-terminal-states',
    role: 'declaration',
    where: ['schema'],
    schema: { type: 'array', minItems: 1, items: str },
    meaning: 'on components.schemas.Task: the state values after which a task never changes',
    example: ['succeeded', 'failed'],
    checks: ['tasks.reaches-terminal', 'tasks.terminal-stable'],
    unshown: ['U-STATES', 'U-TRANSITIONS'],
  },
  {
    name: 'x-success-states',
    role: 'declaration',
    where: ['schema'],
    schema: { type: 'array', minItems: 1, items: str },
    meaning: 'on components.schemas.Task: the terminal values that mean success',
    example: ['succeeded'],
    checks: ['tasks.reaches-terminal', 'vms.stateful'],
    unshown: ['U-STATES'],
  },
  {
    name: 'x-tags-field',
    role: 'declaration',
    where: ['schema'],
    schema: str,
    meaning: 'on components.schemas.VmCreateRequest: the create field that sets tags (an object of key to value)',
    example: 'tags',
    checks: ['vms.tag-filter', 'vms.stateful', 'vms.create-declared-valid', 'vms.values-read-back'],
    unshown: ['U-TAG-SETTING'],
  },
  // ---- parameters ----
  {
    name: 'x-first-page',
    role: 'declaration',
    where: ['parameter'],
    schema: { type: 'integer', minimum: 0, maximum: 1 },
    meaning: 'on components.parameters.page: the number of the first page (0 or 1)',
    example: 1,
    checks: ['pagination.walk', 'pagination.total', 'vms.list-fuzz', 'audit.logged'],
    unshown: ['U-PAGE-DEFAULTS'],
  },
  {
    name: 'x-tag-filter',
    role: 'declaration',
    where: ['parameter'],
    schema: {
      type: 'object',
      additionalProperties: false,
      minProperties: 1,
      properties: {
        case: { enum: ['sensitive', 'insensitive'] },
        repeated: { enum: ['all', 'any', 'first', 'refused'] },
        'key-end': { enum: ['first', 'last'] },
      },
    },
    meaning:
      "on the VM list's tag parameter: how a filter matches. case: whether a tag's value is compared with its case (sensitive) or without (insensitive); repeated: what the parameter given twice (tag=a:1&tag=b:2) means: VMs carrying all of them, any of them, the first only, or a refusal (4xx); key-end: whether the key ends at the first colon of the filter (env:a:b is key env, value a:b) or at its last (key env:a, value b), judged on two VMs the run creates, one with a colon in a tag's value and one in a tag's key",
    example: { case: 'insensitive', repeated: 'all', 'key-end': 'first' },
    checks: ['vms.tag-filter-semantics'],
    unshown: ['U-TAG-SETTING'],
  },
  {
    name: 'x-quota',
    role: 'declaration',
    where: ['operation'],
    schema: {
      type: 'object',
      additionalProperties: false,
      required: ['vms-per-organization'],
      properties: { 'vms-per-organization': { type: 'integer', minimum: 1 } },
    },
    meaning:
      "on the VM create: how many VMs an organization may hold. vms.quota-refusal then counts the organization's VMs (the list's total) and, where the quota is within the create budget, creates up to it: every create below it accepted, the one past it refused (its status and code are the quota-exceeded error case)",
    example: { 'vms-per-organization': 500 },
    checks: ['vms.quota-refusal'],
    unshown: ['U-QUOTAS'],
  },
  {
    name: 'x-per-page-over-max',
    role: 'declaration',
    where: ['parameter'],
    schema: { enum: ['clamp', 'reject'] },
    meaning: 'on components.parameters.per_page: what a per_page above 100 gets, clamped to 100 items or rejected',
    example: 'reject',
    checks: ['schema.declared-choices'],
    unshown: ['U-PER-PAGE-OVER-MAX'],
  },
  // ---- operations: resources, cleanup, restore, revocation ----
  {
    name: 'x-cleanup-for',
    role: 'declaration',
    where: ['operation'],
    schema: str,
    meaning:
      "on a delete operation: the operationId of the operation whose creations it deletes (createVm, startBackup, or the registration or alarm operation); the id comes from the creating response's link to this operation (or to another operation on this path), else from the body's id",
    example: 'createAlarm',
    checks: ['webhooks.unregistered', 'security.cross-org-objects'],
  },
  {
    name: 'x-restores',
    role: 'declaration',
    where: ['operation'],
    schema: { const: 'startBackup' },
    meaning:
      'on the operation that restores a backup ({id} is the backup id): the operation whose backups it restores; its task id is read from its link to getTask',
    example: 'startBackup',
    checks: ['backups.restore-task'],
    unshown: ['U-RESTORE-OPERATION'],
  },
  {
    name: 'x-revokes-key',
    role: 'declaration',
    where: ['operation'],
    schema: { enum: ['current', 'by-id'] },
    meaning:
      "on the operation that revokes an API key: current revokes the calling token's key; by-id revokes the key named by {id}, found through a link to this operation on the token response or on a GET operation answered with the key's own token",
    example: 'by-id',
    checks: ['security.revoked-key'],
    unshown: ['U-KEY-REVOCATION-API'],
  },
  {
    name: 'x-token-claim',
    role: 'declaration',
    where: ['link'],
    schema: { type: 'string', minLength: 1 },
    meaning:
      "on a link whose parameter is a runtime expression that yields a JWT (the token response's $response.body#/token): the id is this claim of that token, read from its payload or its protected header without verifying it (sub, kid): how the calling key's own id is found when only its token carries it",
    example: 'sub',
    checks: ['security.revoked-key'],
    unshown: ['U-KEY-REVOCATION-API'],
  },
  // ---- operations: webhooks and alarms ----
  {
    name: 'x-webhook-registration',
    role: 'declaration',
    where: ['operation'],
    schema: {
      type: 'object',
      additionalProperties: false,
      properties: {
        'url-field': str,
        'events-field': str,
        'secret-field': str,
        subscriptions: {
          type: 'object',
          propertyNames: { enum: ['all', ...EVENT_FAMILIES] },
          additionalProperties: { type: 'array', minItems: 1, items: str },
        },
      },
    },
    meaning:
      "on the operation that registers an endpoint: the request fields for its URL, its event subscriptions and its signing secret; subscriptions gives the values (names or patterns such as backup.job.*) that subscribe to all events or to one family (default: the declared event names); the registration's id comes from its response's link to the delete operation (default: the body's id)",
    example: {
      'url-field': 'url',
      'events-field': 'events',
      'secret-field': 'secret',
      subscriptions: { all: ['*'], 'backup-job': ['backup.job.*'] },
    },
    checks: [
      'webhooks.registration',
      'webhooks.backup-event',
      'webhooks.subscription',
      'webhooks.unregistered',
      'alarms.fires',
    ],
    unshown: ['U-WEBHOOK-REGISTRATION'],
  },
  {
    name: 'x-webhook-signature',
    role: 'declaration',
    where: ['operation'],
    schema: {
      type: 'object',
      additionalProperties: false,
      properties: {
        scheme: { enum: ['hmac', 'standard-webhooks'] },
        header: str,
        algorithm: { enum: ['hmac-sha256', 'hmac-sha1', 'hmac-sha512'] },
        encoding: { enum: ['hex', 'base64'] },
        prefix: { type: 'string' },
        format: placeholders(['signature', 'timestamp', 'id']),
        payload: placeholders(['body', 'timestamp', 'id']),
        'timestamp-header': str,
        'id-header': str,
        'tolerance-seconds': { type: 'number', exclusiveMinimum: 0 },
        clock: { enum: ['target', 'wall'] },
        'secret-format': { enum: ['text', 'whsec'] },
      },
    },
    meaning:
      "on the registration operation: how deliveries are signed. hmac: the HMAC of the signed payload (template over {body}, {timestamp}, {id}; default {body}) with the registered secret, encoded, in header as the format template says (over {signature}, {timestamp}, {id}; default prefix + {signature}; several signatures in one header are accepted, for key rotation); tolerance-seconds bounds the signed timestamp's distance from the clock it follows: clock target (the default) is the target's, read from its Date headers; clock wall is UTC as NTP keeps it, judged against this machine's clock. standard-webhooks: Standard Webhooks 1.0 (webhook-id, webhook-timestamp, webhook-signature; whsec_ secrets; 5 minutes' tolerance)",
    example: {
      header: 'X-Signature',
      algorithm: 'hmac-sha256',
      encoding: 'hex',
      format: 't={timestamp},v1={signature}',
      payload: '{timestamp}.{body}',
      'tolerance-seconds': 300,
    },
    checks: ['webhooks.signature'],
    unshown: ['U-WEBHOOK-REGISTRATION'],
  },
  {
    name: 'x-webhook-retry',
    role: 'declaration',
    where: ['operation'],
    schema: {
      oneOf: [
        {
          type: 'object',
          additionalProperties: false,
          required: ['delays'],
          properties: {
            delays: { type: 'array', minItems: 1, maxItems: 10, items: { type: 'number', minimum: 0 } },
            'event-id-header': EVENT_ID_HEADER,
            'timeout-seconds': TIMEOUT_SECONDS,
          },
        },
        {
          type: 'object',
          additionalProperties: false,
          required: ['attempts'],
          properties: {
            attempts: { type: 'integer', minimum: 2, maximum: 11 },
            'after-seconds': { type: 'number', minimum: 0 },
            'event-id-header': EVENT_ID_HEADER,
            'timeout-seconds': TIMEOUT_SECONDS,
          },
        },
      ],
    },
    meaning:
      "on the registration operation: the retry schedule of a failed delivery, as the delays in target-seconds before each retry (the older form attempts + after-seconds means attempts - 1 equal delays); the suite fails as many attempts as there are delays and waits their sum; event-id-header names the header whose value every attempt of one event shares (default: webhook-id, X-Event-Id, else the body's id or event_id); timeout-seconds is how long, in wall-clock seconds, the target waits for the receiver's answer before it counts the attempt as failed (webhooks.delivery-timeout answers the first attempt of one event of its own backup later than that and waits for the retry)",
    example: { delays: [10, 30, 90, 270], 'event-id-header': 'X-Hook-Event', 'timeout-seconds': 10 },
    checks: [
      'webhooks.retry',
      'webhooks.no-redelivery',
      'webhooks.backup-event',
      'alarms.fires',
      'webhooks.delivery-timeout',
    ],
    unshown: ['U-WEBHOOK-REGISTRATION'],
  },
  {
    name: 'x-event-type-in',
    role: 'declaration',
    where: ['operation'],
    schema: { type: 'object', additionalProperties: false, properties: { header: str, 'body-field': fieldOrPointer } },
    meaning:
      'on the registration operation: where a delivery names its event type, a header, else a body field (dots reach into objects) or JSON pointer (default: the body field type)',
    example: { header: 'X-Event-Type', 'body-field': 'type' },
    checks: ['webhooks.backup-event', 'webhooks.subscription', 'webhooks.test-event', 'alarms.fires'],
    unshown: ['U-EVENT-NAMES'],
  },
  {
    name: 'x-sends-test-event',
    role: 'declaration',
    where: ['operation'],
    schema: { const: true },
    meaning:
      "on an operation whose {id} is a registration's id: calling it sends that registration an event of the test family",
    example: true,
    checks: ['webhooks.test-event'],
  },
  {
    name: 'x-alarm-firing-example',
    role: 'declaration',
    where: ['operation'],
    schema: { oneOf: [{ type: 'object' }, { type: 'array', items: { type: 'object' }, minItems: 1 }] },
    meaning:
      'on the operation that creates a metric alarm: a request body that makes the alarm fire, "{vm_id}" standing for a VM the run created; or a list of them, one per comparison (or metric) the create takes, each of which must fire',
    example: [
      { vm_id: '{vm_id}', metric: 'cpu_utilization', comparison: 'gt', threshold: 10 },
      { vm_id: '{vm_id}', metric: 'cpu_utilization', comparison: 'lt', threshold: 100 },
    ],
    checks: ['alarms.fires'],
    unshown: ['U-EVENT-EMITTERS'],
  },
  {
    name: 'x-fires-alarm',
    role: 'declaration',
    where: ['link'],
    schema: { const: true },
    meaning:
      'on a link of the alarm create\'s success response: the request that then makes the alarm fire (a metric sample pushed, a state set), sent once the alarm is created: the link\'s operation, its parameters runtime expressions of the create ($request.body#/vm_id, $response.body#/id) or literals, its requestBody a literal body, "{vm_id}" standing for the VM',
    example: true,
    checks: ['alarms.fires'],
    unshown: ['U-EVENT-EMITTERS'],
  },
  // ---- webhooks (events) ----
  {
    name: 'x-event-family',
    role: 'declaration',
    where: ['webhook-operation'],
    schema: { enum: [...EVENT_FAMILIES] },
    meaning:
      "on an event of the document's top-level webhooks (its post): the family it belongs to, backup-job, metric-alarm or test",
    example: 'backup-job',
    checks: ['webhooks.backup-event', 'webhooks.subscription', 'webhooks.test-event', 'alarms.fires'],
    unshown: ['U-EVENT-NAMES'],
  },
  {
    name: 'x-emitted-by',
    role: 'declaration',
    where: ['webhook-operation'],
    schema: { type: 'array', minItems: 1, uniqueItems: true, items: { type: 'string', minLength: 1 } },
    meaning:
      "on an event of the document's top-level webhooks (its post): the operationIds whose work raises it (for a long-running operation, when its task ends); the suite restores a backup where the restore is listed, and waits for the event",
    example: ['startBackup', 'restoreBackup'],
    checks: ['webhooks.declared-emitters'],
    unshown: ['U-EVENT-EMITTERS'],
  },
  {
    name: 'x-emitted-on',
    role: 'declaration',
    where: ['webhook-operation'],
    schema: { enum: ['succeeded', 'failed'] },
    meaning:
      "on an event of the document's top-level webhooks (its post): the outcome of the emitting operation's task after which it is sent; the suite's backup, once its task has ended so, must deliver it",
    example: 'succeeded',
    checks: ['webhooks.backup-event'],
    unshown: ['U-EVENT-EMITTERS'],
  },
  // ---- operations: audit ----
  {
    name: 'x-audit',
    role: 'declaration',
    where: ['operation'],
    schema: { enum: ['search', 'export'] },
    meaning: 'marks the audit search operation (paged with page and per_page) and the audit export operation',
    example: 'search',
    checks: ['audit.logged', 'audit.search', 'audit.export'],
    unshown: ['U-OTHER-OPERATION-PATHS'],
  },
  {
    name: 'x-audit-entries-field',
    role: 'declaration',
    where: ['operation'],
    schema: fieldOrPointer,
    meaning:
      "on the audit search: the field (dots reach into objects) or JSON pointer of the response that holds the array of entries (the JSON export's too, where it is an object); undeclared, the suite takes the array whose entries carry its own requests, else the one array of objects, and judges no absence on that guess",
    example: 'entries',
    checks: ['audit.logged', 'audit.search', 'audit.export'],
    unshown: ['U-OTHER-OPERATION-PATHS'],
  },
  {
    name: 'x-audit-fields',
    role: 'declaration',
    where: ['operation'],
    schema: {
      type: 'object',
      additionalProperties: false,
      propertyNames: { enum: [...AUDIT_FIELDS] },
      properties: Object.fromEntries(AUDIT_FIELDS.map((f) => [f, fieldOrPointer])),
    },
    meaning: `on the audit search: where each entry keeps ${AUDIT_FIELDS.join(', ')}, as a JSON pointer into the entry (into nested objects, e.g. /actor/api_key_id) or a field name (dots reach into objects); a CSV export names the column by the pointer with / as .`,
    example: {
      id: '/id',
      actor: '/actor/api_key_id',
      'source-ip': '/source_ip',
      result: '/result',
      path: '/request/path',
      time: '/time',
    },
    checks: ['audit.logged', 'audit.search', 'audit.export'],
    unshown: ['U-OTHER-OPERATION-PATHS'],
  },
  {
    name: 'x-audit-filters',
    role: 'declaration',
    where: ['operation'],
    schema: {
      type: 'object',
      additionalProperties: false,
      properties: { actor: str, result: str, 'path-prefix': str, method: str, from: str, to: str },
    },
    meaning:
      'on the audit search (and the export): the query parameters that filter by actor, by result, by path prefix, by HTTP method, and by a time window (from and to: ISO 8601 date-times, the bounds included)',
    example: {
      actor: 'actor',
      result: 'result',
      'path-prefix': 'path_prefix',
      method: 'method',
      from: 'since',
      to: 'until',
    },
    checks: ['audit.search', 'audit.export', 'audit.logged'],
    unshown: ['U-OTHER-OPERATION-PATHS'],
  },
  {
    name: 'x-audit-result-values',
    role: 'declaration',
    where: ['operation'],
    schema: { type: 'object', additionalProperties: false, properties: { success: str, failure: str } },
    meaning: 'on the audit search: the result values of a successful and of a failed call',
    example: { success: 'success', failure: 'failure' },
    checks: ['audit.logged', 'audit.search', 'audit.export'],
    unshown: ['U-OTHER-OPERATION-PATHS'],
  },
  {
    name: 'x-audit-order',
    role: 'declaration',
    where: ['operation'],
    schema: { enum: ['newest-first', 'oldest-first'] },
    meaning:
      'on the audit search: the order of entries across pages (default newest-first); the suite reads the end of an oldest-first log',
    example: 'oldest-first',
    checks: ['audit.logged', 'audit.search'],
    unshown: ['U-OTHER-OPERATION-PATHS'],
  },
  {
    name: 'x-audit-unauthenticated',
    role: 'declaration',
    where: ['operation'],
    schema: { enum: ['key-organization', 'none'] },
    meaning:
      'on the audit search: whose audit shows the entry of a call made without a token (token issuance): the organization of the API key it names (the suite then looks for its own issuance there), or none (recorded for no organization, so not looked for)',
    example: 'key-organization',
    checks: ['audit.logged'],
    unshown: ['U-OTHER-OPERATION-PATHS'],
  },
  {
    name: 'x-audit-sort',
    role: 'declaration',
    where: ['operation'],
    schema: {
      type: 'object',
      additionalProperties: false,
      required: ['param', 'newest-first'],
      properties: { param: str, 'newest-first': str },
    },
    meaning:
      'on the audit search: a sorting parameter and the value that asks for newest first; the suite sends it and reads the log newest first',
    example: { param: 'sort', 'newest-first': '-time' },
    checks: ['audit.logged', 'audit.search'],
    unshown: ['U-OTHER-OPERATION-PATHS'],
  },
  {
    name: 'x-audit-format-param',
    role: 'declaration',
    where: ['operation'],
    schema: str,
    meaning: 'on the audit export: the query parameter that chooses the format',
    example: 'format',
    checks: ['audit.export'],
    unshown: ['U-OTHER-OPERATION-PATHS'],
  },
  {
    name: 'x-audit-formats',
    role: 'declaration',
    where: ['operation'],
    schema: {
      type: 'object',
      minProperties: 1,
      additionalProperties: { type: 'string', pattern: '^[a-z]+/[a-z0-9.+-]+$' },
    },
    meaning:
      "on the audit export: each format value and its media type; application/json is one array or an object holding the entries (where x-audit-entries-field says, else found as the search's are), application/x-ndjson (or application/jsonl) one entry per line, text/csv a header row then one row per entry",
    example: { json: 'application/json', jsonl: 'application/x-ndjson', csv: 'text/csv' },
    checks: ['audit.export'],
    unshown: ['U-OTHER-OPERATION-PATHS'],
  },
  {
    name: 'x-audit-csv-columns',
    role: 'declaration',
    where: ['operation'],
    schema: {
      type: 'object',
      minProperties: 1,
      additionalProperties: false,
      propertyNames: { enum: [...AUDIT_FIELDS] },
      properties: Object.fromEntries(AUDIT_FIELDS.map((f) => [f, { type: 'string', minLength: 1 }])),
    },
    meaning:
      "on the audit export: the CSV column that holds each field, where it is not named by the field's pointer with / as . (a nested actor id in a column actor_api_key_id, not actor.api_key_id)",
    example: { id: 'entry_id', actor: 'actor_api_key_id' },
    checks: ['audit.export'],
    unshown: ['U-OTHER-OPERATION-PATHS'],
  },
  // ---- annotations of the derived document (spec/openapi.yaml) ----
  {
    name: 'x-unshown-in-seed',
    role: 'annotation',
    where: ['info', 'operation', 'response', 'schema', 'parameter', 'media-type'],
    schema: { type: 'array', items: { type: 'string', pattern: '^U-' } },
    meaning: 'marks where the seed says "not shown", with the ids of the unshown items (spec/clauses.yaml)',
    example: ['U-TOTAL-FIELD-NAME'],
    checks: [],
  },
  {
    name: 'x-clauses',
    role: 'annotation',
    where: ['operation'],
    schema: { type: 'array', items: str },
    meaning: 'the clauses of spec/clauses.yaml an operation of the derived document carries',
    example: ['VM-LIST', 'PAGE-TOTAL'],
    checks: [],
  },
  {
    name: 'x-rate-limit',
    role: 'annotation',
    where: ['operation'],
    schema: { type: 'object' },
    meaning: "the seed's rate limit that applies to an operation (scope, class, per minute)",
    example: { scope: 'token', class: 'read', 'per-minute': 300 },
    checks: [],
  },
  {
    name: 'x-known-values',
    role: 'annotation',
    where: ['schema'],
    schema: { type: 'array' },
    meaning: 'values the seed names for an otherwise open field (the error code quota_exceeded)',
    example: ['quota_exceeded'],
    checks: [],
  },
  {
    name: 'x-returns-task-id',
    role: 'annotation',
    where: ['response'],
    schema: { const: true },
    meaning: 'the seed says this response returns a task id (where is declared by a link to getTask)',
    example: true,
    checks: [],
  },
  {
    name: 'x-seed-digest-file',
    role: 'annotation',
    where: ['info'],
    schema: str,
    meaning: 'the seed the derived document was written from',
    example: 'spec/seed/000_e5e171e8c451466f.txt',
    checks: [],
  },
  {
    name: 'x-object-storage',
    role: 'annotation',
    where: ['info'],
    schema: { type: 'object' },
    meaning: "the seed's outline of the S3-compatible endpoint",
    example: { description: 'Object storage at {s3_url}' },
    checks: [],
  },
  {
    name: 'x-events',
    role: 'annotation',
    where: ['info'],
    schema: { type: 'object' },
    meaning: "the seed's outline of event delivery",
    example: { description: 'Metric alarms and backup-job events are delivered as JSON posts' },
    checks: [],
  },
  {
    name: 'x-limits',
    role: 'annotation',
    where: ['info'],
    schema: { type: 'object' },
    meaning: "the seed's table of limits",
    example: { 'reads-per-minute-per-token': 300 },
    checks: [],
  },
];

export const TERMS_BY_NAME: ReadonlyMap<string, Term> = new Map(TERMS.map((t) => [t.name, t]));

/** The term of a name; throws for a name the vocabulary does not define (a typo in the suite's own code). */
export function term(name: string): Term {
  const t = TERMS_BY_NAME.get(name);
  if (!t) throw new Error(`${name} is not a term of the overlay vocabulary (src/spec/vocabulary.ts)`);
  return t;
}
