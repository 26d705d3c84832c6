import type { CheckContext } from '../../src/engine/run/context.ts';
import type { Exchange } from '../../src/engine/transport/exchange.ts';
import { RUN_TAG_KEY, tagsInShape, type TagShape } from '../../src/engine/target/run-objects.ts';
import { Unavailable } from '../../src/engine/run/check.ts';

/** How the run sets tags where it can: the field, the shape, and whether the overlay declared it. */
export interface TagSetting {
  field: string;
  shape: TagShape;
  declared: boolean;
}

/** Tags are set only where the run knows how: declared, found by certify, or confirmed through the filter. */
export async function tagSetting(ctx: CheckContext): Promise<TagSetting | undefined> {
  if (ctx.declarations.tagsField) return { field: ctx.declarations.tagsField, shape: 'map', declared: true };
  const found = ctx.certify?.tags;
  if (found) return { field: found.field, shape: found.shape, declared: false };
  const runTag = await ctx.objects.runTag();
  return runTag && { field: runTag.field, shape: runTag.shape, declared: false };
}

/** Sets tags on a create body (the run's tag first, so the run finds its own VMs), as the setting says. */
export function withTags(
  ctx: CheckContext,
  body: Record<string, unknown>,
  setting: TagSetting,
  more: Record<string, string> = {}
): Record<string, string> {
  const tags = { [RUN_TAG_KEY]: ctx.config.runId, ...more };
  body[setting.field] = setting.shape === 'map' ? tags : tagsInShape(setting.shape, Object.entries(tags));
  return tags;
}

/** Polls a create's task to its end (a run object's task, so the list shows the VM); quietly none where none is found. */
export async function settled(ctx: CheckContext, created: Exchange, lane?: string): Promise<void> {
  try {
    const task = await ctx.objects.findTask(created, ctx.declarations.taskIdOnCreateVm, { lane });
    await ctx.objects.pollTask(task.id, { lane });
  } catch (err) {
    if (!(err instanceof Unavailable)) throw err;
  }
}
