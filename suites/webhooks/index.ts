import type { Check } from '../../src/engine/check.ts';
import { registration } from './registration.ts';
import { backupEvent } from './backup-event.ts';
import { jsonBody } from './json-body.ts';
import { signature } from './signature.ts';
import { retry } from './retry.ts';
import { unregistered } from './unregistered.ts';

export const webhookChecks: Check[] = [registration, backupEvent, jsonBody, signature, retry, unregistered];
