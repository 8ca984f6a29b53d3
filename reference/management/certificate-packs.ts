import type { ReferenceContext } from '../context.ts';
import { notFound } from './api-error.ts';
import { type ListSpec, paginate } from './pagination.ts';
import type { Router } from './router.ts';
import { requireZone } from './scope.ts';
import type { Json } from './store.ts';

const LIST: ListSpec<Json> = {
  orderBy: {
    created_on: (p) => p.created_on as string,
    type: (p) => p.type as string,
    status: (p) => p.status as string,
  },
  defaultOrder: 'created_on',
  defaultPerPage: 20,
  maxPerPage: 1000,
};

/** SPEC: Certificate pack and Certificate fields; the faults break one of each in responses. */
function view(ctx: ReferenceContext, pack: Json): Json {
  const out = structuredClone(pack);
  if (ctx.faults.has('pack-validity-days-string')) out.validity_days = String(out.validity_days);
  if (ctx.faults.has('drop-certificate-fields'))
    for (const cert of out.certificates as Json[]) delete cert.status;
  if (ctx.faults.has('certificate-priority-string'))
    for (const cert of out.certificates as Json[])
      if (cert.priority != null) cert.priority = String(cert.priority);
  return out;
}

export function registerCertificatePacks(router: Router): void {
  router.on('GET', '/zones/:zone_id/ssl/certificate_packs', (req) => {
    requireZone(req);
    // Without ssl_status=all only active packs are listed, as the real service does; its clients send status=all.
    const all =
      (req.query.get('ssl_status') ?? req.query.get('status')) === 'all'
        ? req.state.certificatePacks
        : req.state.certificatePacks.filter((p) => p.status === 'active');
    const page = paginate(req.ctx, all, req.query, LIST);
    // A block copied from the whole list rather than the page.
    if (page.info && req.ctx.faults.has('certpacks-count-is-total')) page.info.count = page.info.total_count;
    // A block that leaves out the size of the whole list.
    if (page.info && req.ctx.faults.has('certpacks-info-without-total-count'))
      delete (page.info as Partial<typeof page.info>).total_count;
    const packs = page.items.map((p) => view(req.ctx, p));
    // A list that fits on one page answered without its block, as if result_info were only for paging.
    const single = page.info && page.info.total_count <= page.info.per_page;
    if (single && req.ctx.faults.has('certpacks-one-page-without-info')) return { result: packs };
    // The packs answered as an object keyed by id instead of an array.
    if (req.ctx.faults.has('certpacks-keyed-by-id'))
      return { result: Object.fromEntries(packs.map((p) => [String(p.id), p])), resultInfo: page.info };
    return { result: packs, resultInfo: page.info };
  });

  router.on('GET', '/zones/:zone_id/ssl/certificate_packs/:pack_id', (req) => {
    requireZone(req);
    const pack = req.state.certificatePacks.find((p) => p.id === req.params.pack_id);
    if (!pack) throw notFound(`certificate pack ${req.params.pack_id}`);
    return { result: view(req.ctx, pack) };
  });
}
