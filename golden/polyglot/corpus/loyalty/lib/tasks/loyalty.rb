# frozen_string_literal: true

# Rake tasks for the loyalty programme. Loaded from the Rakefile with
# `Dir.glob("lib/tasks/*.rb").each { |f| load f }`.

require "csv"

namespace :loyalty do
  desc "Recalculate every customer's tier from trailing 12-month spend"
  task recalculate_tiers: :environment do
    changed = Hash.new(0)
    Customer.find_each(batch_size: 1_000) do |customer|
      new_tier = customer.calculated_tier
      next if new_tier == customer.tier

      changed["#{customer.tier}->#{new_tier}"] += 1
      customer.update_columns(tier: new_tier, tier_changed_at: Time.current)
      LoyaltyMailer.tier_changed(customer).deliver_later if new_tier != "bronze"
    end
    changed.each { |transition, count| puts format("%-16s %d", transition, count) }
  end

  desc "Expire points older than two years"
  task expire_points: :environment do
    result = Loyalty::PointsExpiry.new.call
    puts "checked #{result.customers_checked} customers, expired #{result.points_expired} points"
  end

  desc "Export the points ledger for finance (FROM=YYYY-MM-DD TO=YYYY-MM-DD)"
  task :export_ledger, [:path] => :environment do |_task, args|
    from = Date.parse(ENV.fetch("FROM"))
    to = Date.parse(ENV.fetch("TO"))
    path = args[:path] || "loyalty-ledger-#{from}-#{to}.csv"

    CSV.open(path, "w") do |csv|
      csv << %w[created_at customer_id order_id delta reason]
      PointTransaction.where(created_at: from.beginning_of_day..to.end_of_day)
                      .order(:created_at)
                      .find_each do |t|
        csv << [t.created_at.iso8601, t.customer_id, t.order_id, t.delta, t.reason]
      end
    end
    puts "wrote #{path}"
  end
end
