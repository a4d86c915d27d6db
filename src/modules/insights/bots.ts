/**
 * User agents of crawlers, link previewers, uptime checkers and automated browsers. Their requests are accepted
 * (202) but not counted. No user agent at all counts as automated too.
 */
const BOT =
  /bot\b|bot\/|crawl|spider|slurp|mediapartners|facebookexternalhit|embedly|quora link preview|whatsapp|telegram|skypeuripreview|bitlybot|pinterest|vkshare|lighthouse|pagespeed|headlesschrome|phantomjs|puppeteer|playwright|selenium|python-requests|python-urllib|curl\/|wget\/|go-http-client|java\/|okhttp|axios\/|node-fetch|undici|uptime|monitor|pingdom|statuscake|preview/i;

export function isBot(userAgent: string | undefined): boolean {
  return !userAgent || userAgent.length < 8 || BOT.test(userAgent);
}
