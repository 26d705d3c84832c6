import type { Check } from '../../src/engine/run/check.ts';
import type { CheckContext } from '../../src/engine/run/context.ts';
import type { Exchange } from '../../src/engine/transport/exchange.ts';
import { finding, judge, skip } from '../../src/engine/run/check.ts';
import { describeExchange, errorCode, isSuccess, observeErrorCase, taskEnd } from '../support.ts';

/** A refusal that says nothing of the subnet: a quota, a rate limit, a server that broke or never answered. */
const notAboutTheSubnet = (ex: Exchange) =>
  ex.response?.status === 429 || errorCode(ex) === 'quota_exceeded' || !ex.response || ex.response.status >= 500;

/**
 * Object-level authorization through a body: the primary key's create naming the second organization's subnet
 * (--subnet-id-b) is refused. It is the property security.cross-org-objects holds for an id in the path (a read of
 * another organization's object by id), held at the same level for an id in the body: the seed says a token names its
 * key's organization and a key has its owner's permissions only, and the run was told the subnet is the second
 * organization's.
 */
export const crossOrgReference: Check = {
  id: 'security.cross-org-reference',
  group: 'security',
  clauses: ['AUTH-TOKEN-ORGANIZATION', 'KEY-INHERITS-ROLE'],
  level: 'must',
  why: {
    must: "the seed says a token names its key's organization and a key has only its owner's permissions; --subnet-id-b is, as the run was told, an object of the second organization, so attaching the primary key's VM to it reaches that organization's object by id, as a read by id does (security.cross-org-objects, MUST): one property, one level, whether the id is in the path or the body. Subnets shared across organizations exist (a VPC shared by its owner), but sharing is the owner's grant, which the seed does not show and this run did not make: a subnet the first organization may use is not the second organization's, and is not one to give as --subnet-id-b",
  },
  title: "A VM create naming another organization's subnet is refused",
  async run(ctx) {
    if (!ctx.config.subnetIdB)
      return skip(
        "needs --subnet-id-b (a subnet of the second organization, to name in the primary key's create)",
        '--subnet-id-b ID'
      );
    if (ctx.config.readOnly) return skip('a read-only run makes no create', 'a run without --read-only');
    const { body } = ctx.objects.vmCreateBody('foreign-subnet');
    const json = { ...body, subnet_id: ctx.config.subnetIdB };
    const ex = await ctx.call({ method: 'POST', path: '/v1/vms', json });
    if (isSuccess(ex)) return judgeServed(ctx, ex, String(body['name']));
    // A quota refusal is the organization's room, which other checks share (deleting one of their VMs is not this check's to do).
    if (notAboutTheSubnet(ex))
      return skip(
        `the create was refused for another reason (${describeExchange(ex)})`,
        'an organization with room for one more VM'
      );
    observeErrorCase(ctx, 'other-organization-reference', ex);
    return judge([], `the create on the second organization's subnet was refused: ${describeExchange(ex)}`, [ex]);
  },
};

/** The create was served: a finding, unless its task ended failed (a target may refuse the subnet in the task). */
async function judgeServed(ctx: CheckContext, ex: Exchange, name: string) {
  ctx.ledger.record({ kind: 'vm', name, createdBy: ctx.checkId, note: "made on the second organization's subnet" }, ex);
  if ((await taskEnd(ctx, ex)) === 'failed')
    return judge(
      [],
      `the create on the second organization's subnet was accepted, and its task ended failed: refused in the task (${describeExchange(ex)})`,
      [ex]
    );
  const declared = ctx.declarations.errorCases['other-organization-reference'];
  const refusal = declared
    ? `, although the overlay declares its refusal (${declared.map((p) => `${p.status} ${p.code ?? ''}`.trim()).join(' or ')})`
    : '';
  return judge(
    [
      finding(
        'must',
        `the primary key's create on the second organization's subnet (--subnet-id-b) was served: ${describeExchange(ex)}${refusal}; a create reaches another organization's object by id, as a read by id would`,
        [ex]
      ),
    ],
    ''
  );
}
