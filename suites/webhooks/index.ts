import type { Check } from '../../src/engine/run/check.ts';
import { EVENTS, sharing } from '../shares.ts';
import { registration } from './registration.ts';
import { backupEvent } from './backup-event.ts';
import { subscription } from './subscription.ts';
import { jsonBody } from './json-body.ts';
import { signature } from './signature.ts';
import { retry } from './retry.ts';
import { testEvent } from './test-event.ts';
import { unregistered } from './unregistered.ts';
import { declaredEmitters } from './declared-emitters.ts';
import { deliveryTimeout } from './delivery-timeout.ts';
import { noRedelivery } from './no-redelivery.ts';

export const webhookChecks: Check[] = sharing(
  [EVENTS],
  [
    registration,
    backupEvent,
    subscription,
    jsonBody,
    signature,
    retry,
    deliveryTimeout,
    testEvent,
    unregistered,
    declaredEmitters,
    noRedelivery,
  ]
);
