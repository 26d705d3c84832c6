import type { Check } from '../../src/engine/run/check.ts';
import { finding, judge, skip } from '../../src/engine/run/check.ts';
import { describeExchange, errorCode, isSuccess, observeErrorCase, taskEnd } from '../support.ts';

/**
 * Object-level authorization through a body: a create that names another organization's object,
 * here a VM on the second organization's subnet, asked for with the primary key, is refused. The seed does not say
 * whether a subnet can be shared across organizations (some clouds share them), so a target that serves it is warned
 * (OWASP API1), and fails only where its overlay declares the refusal (the other-organization-reference error case).
 */
export const crossOrgReference: Check = {
  id: 'security.cross-org-reference',
  group: 'security',
  clauses: ['KEY-INHERITS-ROLE', 'AUTH-TOKEN-ORGANIZATION'],
  level: 'declared',
  why: {
    should:
      "whether one organization may use another's subnet is not shown; refusing it is object-level authorization convention (OWASP API1)",
    declared:
      'the overlay declares the other-organization-reference error case: the target says it refuses such a create',
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
    const ex = await ctx.call({ method: 'POST', path: '/v1/vms', json: { ...body, subnet_id: ctx.config.subnetIdB } });
    if (isSuccess(ex)) {
      ctx.ledger.record(
        {
          kind: 'vm',
          name: String(body['name']),
          createdBy: ctx.checkId,
          note: "made on the second organization's subnet",
        },
        ex
      );
      // A create is long-running: a target may refuse the subnet in the task, which then ends failed.
      const ended = await taskEnd(ctx, ex);
      if (ended === 'failed')
        return judge(
          [],
          `the create on the second organization's subnet was accepted, and its task ended failed: refused in the task (${describeExchange(ex)})`,
          [ex]
        );
      const declared = ctx.declarations.errorCases['other-organization-reference'];
      const message = `the primary key's create on the second organization's subnet was served: ${describeExchange(ex)}`;
      return judge(
        [
          finding(
            declared ? 'declared' : 'should',
            declared
              ? `${message}, although the overlay declares its refusal (${declared.map((p) => `${p.status} ${p.code ?? ''}`.trim()).join(' or ')})`
              : message,
            [ex]
          ),
        ],
        ''
      );
    }
    // A refusal for another reason (quota, rate) says nothing of the subnet.
    if (ex.response?.status === 429 || errorCode(ex) === 'quota_exceeded' || !ex.response || ex.response.status >= 500)
      return skip(
        `the create was refused for another reason (${describeExchange(ex)})`,
        'an organization with room for one more VM'
      );
    observeErrorCase(ctx, 'other-organization-reference', ex);
    return judge([], `the create on the second organization's subnet was refused: ${describeExchange(ex)}`, [ex]);
  },
};
