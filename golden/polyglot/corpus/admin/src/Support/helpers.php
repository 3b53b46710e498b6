<?php

/**
 * Helpers shared by the legacy admin pages. These predate the controller
 * classes and are still included from every page template.
 */

declare(strict_types=1);

/** Escape text for HTML output. */
function e(?string $value): string
{
    return htmlspecialchars($value ?? '', ENT_QUOTES | ENT_SUBSTITUTE, 'UTF-8');
}

/** Format pence as pounds for the admin tables, e.g. 1299 => "£12.99". */
function money_format_minor(int $amountMinor, string $currency = 'GBP'): string
{
    $symbols = ['GBP' => '£', 'EUR' => '€', 'USD' => '$'];
    $sign = $amountMinor < 0 ? '-' : '';
    return $sign . ($symbols[$currency] ?? $currency . ' ') . number_format(abs($amountMinor) / 100, 2);
}

/** Return the session CSRF token, creating one on first use. */
function csrf_token(): string
{
    if (session_status() !== PHP_SESSION_ACTIVE) {
        session_start();
    }
    if (empty($_SESSION['csrf_token'])) {
        $_SESSION['csrf_token'] = bin2hex(random_bytes(32));
    }
    return $_SESSION['csrf_token'];
}

/** Abort with 419 unless the posted token matches the session token. */
function require_csrf(array $post): void
{
    $sent = $post['_token'] ?? '';
    if (!is_string($sent) || !hash_equals(csrf_token(), $sent)) {
        http_response_code(419);
        exit('Your session expired. Go back, reload the page and try again.');
    }
}

/** Build page links for admin list views, keeping the other query parameters. */
function paginate(int $page, int $perPage, int $total, array $query): array
{
    $pages = max(1, (int) ceil($total / $perPage));
    $links = [];
    for ($p = max(1, $page - 3); $p <= min($pages, $page + 3); $p++) {
        $links[] = [
            'page' => $p,
            'url' => '?' . http_build_query(array_merge($query, ['page' => $p])),
            'current' => $p === $page,
        ];
    }
    return ['pages' => $pages, 'links' => $links];
}
