import { badRequest, notFound } from './api-error.ts';
import { type ListSpec, paginate } from './pagination.ts';
import type { ApiRequest, Router } from './router.ts';
import { objectBody, requireZone } from './scope.ts';
import type { Json } from './store.ts';

const ZONE_DATASETS = new Set([
  'http_requests',
  'firewall_events',
  'dns_logs',
  'nel_reports',
  'spectrum_events',
  'page_shield_events',
]);
const LIST: ListSpec<Json> = {
  orderBy: { id: (j) => j.id as number, name: (j) => String(j.name), dataset: (j) => String(j.dataset) },
  defaultOrder: 'id',
  defaultPerPage: 100,
  maxPerPage: 1000,
};
const TIMESTAMP_FORMATS = new Set(['rfc3339', 'unix', 'unixnano']);
const OPTION_KEYS = new Set(['fields', 'timestamps', 'sample', 'CVE-2021-44228']);
/** Fields that carry the custom log fields (SPEC: Log-push job). */
export const CUSTOM_FIELD_CARRIERS = ['Cookies', 'RequestHeaders', 'ResponseHeaders'];

/** Parses `fields=...&timestamps=...` (SPEC: logpull_options); an unknown key or format is an error. */
function checkLogpullOptions(options: string, rejectCustom: boolean, requireCustom: boolean): void {
  const query = new URLSearchParams(options.replace(/^\?/, ''));
  for (const key of query.keys()) {
    if (!OPTION_KEYS.has(key)) throw badRequest(`logpull_options: unknown option '${key}'`);
  }
  const timestamps = query.get('timestamps');
  if (timestamps !== null && !TIMESTAMP_FORMATS.has(timestamps)) {
    throw badRequest(`logpull_options: timestamps must be one of ${[...TIMESTAMP_FORMATS].join(', ')}`);
  }
  const fields = query.get('fields');
  if (fields !== null) {
    const names = fields.split(',').map((f) => f.trim());
    if (names.some((n) => !/^[A-Za-z][A-Za-z0-9]*$/.test(n))) {
      throw badRequest('logpull_options: fields must be a comma separated list of field names');
    }
    if (rejectCustom && names.some((n) => CUSTOM_FIELD_CARRIERS.includes(n))) {
      throw badRequest('logpull_options: custom field carriers are not available');
    }
    // As if every http_requests job had to carry custom fields.
    if (requireCustom && !names.some((n) => CUSTOM_FIELD_CARRIERS.includes(n))) {
      throw badRequest('logpull_options: fields must include Cookies, RequestHeaders or ResponseHeaders');
    }
  }
}

function checkJob(req: ApiRequest, body: Json, partial: boolean): void {
  const d = body.destination_conf;
  if (!(partial && d === undefined)) {
    if (typeof d !== 'string' || !/^[a-z][a-z0-9+.-]*:\/\/\S+$/i.test(d)) {
      throw badRequest('destination_conf is required: a destination URL such as r2://bucket/path?options');
    }
  }
  const dataset = body.dataset;
  if (!partial || dataset !== undefined) {
    if (typeof dataset !== 'string' || !ZONE_DATASETS.has(dataset)) {
      throw badRequest(`dataset must be one of ${[...ZONE_DATASETS].join(', ')}`);
    }
  }
  if (body.ownership_challenge !== undefined && req.ctx.faults.has('reject-ownership-challenge')) {
    throw badRequest('ownership_challenge is not a known field');
  }
  for (const field of ['name', 'logpull_options', 'ownership_challenge'] as const) {
    if (body[field] !== undefined && body[field] !== null && typeof body[field] !== 'string') {
      throw badRequest(`${field} must be a string`);
    }
  }
  if (typeof body.logpull_options === 'string') {
    checkLogpullOptions(
      body.logpull_options,
      req.ctx.faults.has('reject-custom-field-carriers'),
      req.ctx.faults.has('logpush-requires-custom-carriers'),
    );
  }
  if (body.enabled !== undefined && typeof body.enabled !== 'boolean')
    throw badRequest('enabled must be a boolean');
}

/** The option string as stored: under the fault, the custom field carriers are silently left out of fields. */
function storedOptions(req: ApiRequest, options: unknown): unknown {
  if (typeof options !== 'string') return options;
  const query = new URLSearchParams(options.replace(/^\?/, ''));
  const fields = query.get('fields');
  if (fields === null) return options;
  const names = fields.split(',').map((f) => f.trim());
  if (!names.some((n) => CUSTOM_FIELD_CARRIERS.includes(n))) return options;
  if (!req.ctx.faults.has('logpush-strips-custom-carriers')) return options;
  query.set('fields', names.filter((n) => !CUSTOM_FIELD_CARRIERS.includes(n)).join(','));
  return decodeURIComponent(query.toString());
}

function find(req: ApiRequest): Json {
  requireZone(req);
  const job = req.state.logpushJobs.get(Number(req.params.job_id));
  if (!job) throw notFound(`log-push job ${req.params.job_id}`);
  return job;
}

/** The ownership challenge proves control of the destination; it is checked, never stored or echoed. */
function view(job: Json): Json {
  return { ...job };
}

export function registerLogpush(router: Router): void {
  router.on('GET', '/zones/:zone_id/logpush/jobs', (req) => {
    requireZone(req);
    const page = paginate(req.ctx, [...req.state.logpushJobs.values()], req.query, LIST);
    return { result: page.items.map(view), resultInfo: page.info };
  });

  router.on('POST', '/zones/:zone_id/logpush/jobs', (req) => {
    requireZone(req);
    const body = objectBody(req);
    checkJob(req, body, false);
    const id = req.state.nextLogpushJobId++;
    const job: Json = {
      id,
      dataset: body.dataset,
      destination_conf: body.destination_conf,
      enabled: body.enabled ?? false,
      name: body.name ?? null,
      logpull_options: storedOptions(req, body.logpull_options) ?? null,
      output_options: null,
      frequency: 'high',
      kind: '',
      max_upload_bytes: 5000000,
      max_upload_records: 1000,
      max_upload_interval_seconds: 30,
      error_message: null,
      last_complete: null,
      last_error: null,
      filter: null,
    };
    req.state.logpushJobs.set(id, job);
    return { result: view(job) };
  });

  router.on('GET', '/zones/:zone_id/logpush/jobs/:job_id', (req) => ({ result: view(find(req)) }));

  router.on('PUT', '/zones/:zone_id/logpush/jobs/:job_id', (req) => {
    const job = find(req);
    const body = objectBody(req);
    checkJob(req, body, true);
    for (const key of [
      'destination_conf',
      'enabled',
      'name',
      'logpull_options',
      'frequency',
      'filter',
    ] as const) {
      if (body[key] !== undefined)
        job[key] = key === 'logpull_options' ? storedOptions(req, body[key]) : body[key];
    }
    return { result: view(job) };
  });

  router.on('DELETE', '/zones/:zone_id/logpush/jobs/:job_id', (req) => {
    const job = find(req);
    req.state.logpushJobs.delete(job.id as number);
    return { result: { id: job.id } };
  });
}
