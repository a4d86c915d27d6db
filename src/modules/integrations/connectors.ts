import type { Connector, IntegrationName } from './connector.ts';
import { cal } from './cal.ts';
import { rentcafe } from './rentcafe.ts';
import { salesforce } from './salesforce.ts';
import { spark } from './spark.ts';
import { zoho } from './zoho.ts';

/** Every integration by name, in the order the console lists them. A connector is its own file. */
export const CONNECTORS: Record<IntegrationName, Connector> = { spark, salesforce, zoho, rentcafe, cal };
