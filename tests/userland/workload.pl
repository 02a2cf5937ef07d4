# The perl workload of mseal_run_test: run sealed and unsealed, the two
# outputs must be the same. Uses XS modules, which perl's DynaLoader
# dlopen()s (POSIX, List::Util, Digest::MD5, Data::Dumper, Storable, Fcntl).
use strict;
use warnings;
use Data::Dumper;
use Digest::MD5 qw(md5_hex);
use Fcntl qw(O_RDONLY);
use List::Util qw(sum max shuffle first);
use POSIX qw(floor strftime);
use Storable qw(freeze thaw);

$Data::Dumper::Sortkeys = 1;
$Data::Dumper::Indent = 1;
my %h = map { $_ => $_ * $_ } 1 .. 20;
print Dumper(\%h);
my @primes = grep { my $n = $_; !first { $n % $_ == 0 } 2 .. sqrt($n) } 2 .. 300;
print "primes ", scalar(@primes), " sum ", sum(@primes), " max ", max(@primes), "\n";
print "md5 ", md5_hex(join(",", @primes)), "\n";
print "floor ", floor(-3.5), " date ", strftime("%Y-%m-%d", gmtime(1704931200)), "\n";
my $copy = thaw(freeze(\%h));
print "storable ", $copy->{12}, "\n";
print "fcntl ", O_RDONLY, "\n";
my $s = join "", map { chr(65 + $_ % 26) } 0 .. 999;
(my $t = $s) =~ s/([AEIOU])/lc $1/ge;
print "regex ", md5_hex($t), "\n";
print "sprintf ", sprintf("%.10f %x %o %e", 4 * atan2(1, 1), 48879, 511, 6.02e23), "\n";
