#!/usr/bin/perl
# Hostile and odd peers of an agent's control port, for the integration tests (core Perl only).
#   ctl_peer.pl relay LPORT HOST PORT RECORD   forwards one connection to HOST:PORT, writing
#                                              what the client sent to RECORD
#   ctl_peer.pl replay HOST PORT RECORD        sends RECORD's bytes, prints the message types
#                                              the agent answered ("HELLO AUTH_CHALLENGE
#                                              ERROR:6 EOF")
#   ctl_peer.pl hello HOST PORT VERSION        HELLO with another version; prints the answer
#   ctl_peer.pl hellotext HOST PORT VERSION    the same, printing an ERROR's code and text
#                                              ("ERROR:1 the client speaks ...")
#   ctl_peer.pl hellotime HOST PORT            HELLO of this version, then (keyless agent)
#                                              HOSTINFO_REQUEST; prints the milliseconds from
#                                              the connect to the agent's HELLO and to its
#                                              HOSTINFO ("12 140")
#   ctl_peer.pl oldagent LPORT VERSION MODE    an agent of protocol VERSION on 127.0.0.1:LPORT
#                                              for one client: MODE refuse answers its HELLO
#                                              as such an agent does (ERROR code 1, that
#                                              agent's words), MODE hello with a HELLO of
#                                              VERSION; prints "listening" once it listens
#   ctl_peer.pl skipauth HOST PORT             HELLO, then HOSTINFO_REQUEST without the key
#   ctl_peer.pl silent HOST PORT N SECS [FROM] holds N connections open, silent, for SECS
#                                              (from source address FROM)
#   ctl_peer.pl idle HOST PORT KEY N SECS [FROM]  N connections that prove the key (file KEY),
#                                              then hold still for SECS; prints how many the
#                                              agent proved itself to
#   ctl_peer.pl delay LPORT HOST PORT FROM SECS  forwards one connection from LPORT (on HOST)
#                                              to HOST:PORT from source FROM, what the client
#                                              sends SECS late (a distant client's handshake)
#   ctl_peer.pl churn HOST PORT SECS           connects and closes in a loop for SECS
#   ctl_peer.pl garbage HOST PORT N            N connections of random bytes, huge lengths,
#                                              truncated frames
use strict;
use warnings;
use IO::Socket::INET;
use IO::Select;
use Time::HiRes qw(time sleep);

# runner/proto/proto.h's PROTO_VERSION, read from the source: a HELLO of another one is
# refused before anything else, and every bump would have to change this script too
use FindBin;
my $VERSION;
{
	open(my $h, '<', "$FindBin::Bin/../../runner/proto/proto.h") or die "proto.h: $!\n";
	while (<$h>) { $VERSION = $1 if /^#define PROTO_VERSION (\d+)/; }
	die "no PROTO_VERSION in proto.h\n" unless $VERSION;
}
my %names = (1 => 'HELLO', 2 => 'AUTH_CHALLENGE', 3 => 'AUTH_RESPONSE', 5 => 'READY',
	     13 => 'HOSTINFO', 14 => 'BUSY', 15 => 'ERROR');
my $mode = shift @ARGV or die "mode?\n";

sub conn {
	my ($h, $p, $from) = @_;
	return IO::Socket::INET->new(PeerAddr => $h, PeerPort => $p, Proto => 'tcp', Timeout => 3,
				     $from ? (LocalAddr => $from) : ());
}

# Reads exactly $n bytes within $secs, or undef.
sub read_n {
	my ($s, $n, $secs) = @_;
	my ($buf, $sel, $until) = ('', IO::Select->new($s), time + $secs);
	while (length($buf) < $n) {
		return undef unless $sel->can_read($until - time);
		my $got = sysread($s, $buf, $n - length($buf), length($buf));
		return undef unless $got;
	}
	return $buf;
}

# One frame: (type, payload) or () on EOF / timeout.
sub frame {
	my ($s, $secs) = @_;
	my $hdr = read_n($s, 8, $secs) // return ();
	my ($len, $type) = unpack('N n', $hdr);
	my $body = $len ? read_n($s, $len, $secs) // return () : '';
	return ($type, $body);
}

# Reads frames for up to $secs; returns the list of type names (ERROR:code), EOF at the end.
sub answers {
	my ($s, $secs) = @_;
	my ($buf, @out) = ('');
	my $sel = IO::Select->new($s);
	my $until = time + $secs;
	while (time < $until) {
		last unless $sel->can_read($until - time);
		my $n = sysread($s, my $chunk, 65536);
		if (!$n) { push @out, 'EOF'; last; }
		$buf .= $chunk;
		while (length($buf) >= 8) {
			my ($len, $type) = unpack('N n', $buf);
			last if length($buf) < 8 + $len;
			my $name = $names{$type} // "TYPE$type";
			$name .= ':' . unpack('n', substr($buf, 8, 2)) if $type == 15;
			push @out, $name;
			substr($buf, 0, 8 + $len) = '';
		}
	}
	return @out;
}

if ($mode eq 'relay') {
	my ($lport, $h, $p, $rec) = @ARGV;
	my $l = IO::Socket::INET->new(LocalAddr => '0.0.0.0', LocalPort => $lport, Listen => 1,
				      ReuseAddr => 1) or die "listen: $!\n";
	my $c = $l->accept or die "accept: $!\n";
	my $a = conn($h, $p) or die "connect: $!\n";
	open(my $f, '>', $rec) or die "$rec: $!\n";
	binmode $f;
	my $sel = IO::Select->new($c, $a);
	OUTER: while (1) {
		for my $r ($sel->can_read(30)) {
			my $n = sysread($r, my $buf, 65536);
			last OUTER unless $n;
			if ($r == $c) { print $f $buf; syswrite($a, $buf); } else { syswrite($c, $buf); }
		}
	}
	close $f;
} elsif ($mode eq 'replay') {
	my ($h, $p, $rec) = @ARGV;
	open(my $f, '<', $rec) or die "$rec: $!\n";
	binmode $f;
	local $/;
	my $bytes = <$f>;
	my $s = conn($h, $p) or die "connect: $!\n";
	syswrite($s, $bytes);
	print join(' ', answers($s, 4)), "\n";
} elsif ($mode eq 'hello') {
	my ($h, $p, $v) = @ARGV;
	my $s = conn($h, $p) or die "connect: $!\n";
	syswrite($s, pack('N n n N n n', 8, 1, 0, 0x4e535750, $v, 0));
	print join(' ', answers($s, 3)), "\n";
} elsif ($mode eq 'hellotext') {
	my ($h, $p, $v) = @ARGV;
	my $s = conn($h, $p) or die "connect: $!\n";
	syswrite($s, pack('N n n N n n', 8, 1, 0, 0x4e535750, $v, 0));
	my ($type, $body) = frame($s, 5);
	if (!defined $type) { print "EOF\n"; }
	elsif ($type == 15) {
		my ($code, $n) = unpack('n n', $body);
		print "ERROR:$code ", substr($body, 4, $n), "\n";
	} else { print $names{$type} // "TYPE$type", "\n"; }
} elsif ($mode eq 'hellotime') {
	my ($h, $p) = @ARGV;
	my $t0 = time;
	my $s = conn($h, $p) or die "connect: $!\n";
	syswrite($s, pack('N n n N n n', 8, 1, 0, 0x4e535750, $VERSION, 0));
	my ($type) = frame($s, 30);
	die "no answer to HELLO within 30 s\n" unless defined $type && $type == 1;
	my $hello = time;
	syswrite($s, pack('N n n', 0, 12, 0));
	($type) = frame($s, 30);
	die "no HOSTINFO within 30 s\n" unless defined $type && $type == 13;
	printf "%.0f %.0f\n", ($hello - $t0) * 1000, (time - $t0) * 1000;
} elsif ($mode eq 'oldagent') {
	my ($lport, $v, $how) = @ARGV;
	my $l = IO::Socket::INET->new(LocalAddr => '127.0.0.1', LocalPort => $lport, Listen => 1,
				      ReuseAddr => 1) or die "listen: $!\n";
	print "listening\n";
	STDOUT->flush;
	my $c = $l->accept or die "accept: $!\n";
	my ($type, $body) = frame($c, 10);
	die "no HELLO\n" unless defined $type && $type == 1;
	my $theirs = unpack('n', substr($body, 4, 2));
	if ($how eq 'hello') {
		syswrite($c, pack('N n n N n n', 8, 1, 0, 0x4e535750, $v, 0));
	} else {
		my $text = "protocol version $theirs is not supported (this side speaks $v; both " .
			   "ends need the same netsweep release)";
		syswrite($c, pack('N n n n n', 4 + length($text), 15, 0, 1, length($text)) . $text);
	}
	sleep 1;
} elsif ($mode eq 'skipauth') {
	my ($h, $p) = @ARGV;
	my $s = conn($h, $p) or die "connect: $!\n";
	syswrite($s, pack('N n n N n n', 8, 1, 0, 0x4e535750, $VERSION, 0) . pack('N n n', 0, 12, 0));
	print join(' ', answers($s, 3)), "\n";
} elsif ($mode eq 'silent') {
	my ($h, $p, $n, $secs, $from) = @ARGV;
	my @keep;
	for (1 .. $n) { my $s = conn($h, $p, $from); push @keep, $s if $s; }
	print scalar(@keep), "\n";
	STDOUT->flush;
	sleep $secs;
} elsif ($mode eq 'churn') {
	my ($h, $p, $secs) = @ARGV;
	my ($until, $n) = (time + $secs, 0);
	while (time < $until) { my $s = conn($h, $p); $n++ if $s; close $s if $s; sleep 0.01; }
	print "$n\n";
} elsif ($mode eq 'garbage') {
	my ($h, $p, $n) = @ARGV;
	my $ok = 0;
	for my $i (1 .. $n) {
		my $s = conn($h, $p) or next;
		$ok++;
		my $k = $i % 4;
		my $junk = join('', map { chr(int(rand(256))) } 1 .. 64);
		if ($k == 0) { syswrite($s, $junk); }                                  # random bytes
		elsif ($k == 1) { syswrite($s, pack('N n n', 0xffffffff, 1, 0)); }     # huge length
		elsif ($k == 2) { syswrite($s, pack('N n n', 8, 1, 0) . "NSW"); }      # truncated
		else { syswrite($s, pack('N n n N n n', 8, 1, 0, 0x4e535750, $VERSION, 0) .  # bad fields
				    pack('N n n', 64, 3, 0) . $junk); }
		close $s;
	}
	print "$ok\n";
} elsif ($mode eq 'idle') {
	require Digest::SHA;
	my ($h, $p, $keyfile, $n, $secs, $from) = @ARGV;
	open(my $f, '<', $keyfile) or die "$keyfile: $!\n";
	my $hex = <$f>;
	chomp $hex;
	my $key = pack('H*', $hex);
	my (@keep, $proved);
	$proved = 0;
	for (1 .. $n) {
		my $s = conn($h, $p, $from) or next;
		syswrite($s, pack('N n n N n n', 8, 1, 0, 0x4e535750, $VERSION, 0));
		my ($t1) = frame($s, 3);
		my ($t2, $na) = frame($s, 3);
		next unless defined $t2 && $t1 == 1 && $t2 == 2;
		my $nc = join('', map { chr(int(rand(256))) } 1 .. 32);
		my $mac = Digest::SHA::hmac_sha256("netsweep client proof" . $na . $nc, $key);
		syswrite($s, pack('N n n', 64, 3, 0) . $nc . $mac);
		my ($t3) = frame($s, 3);
		$proved++ if defined $t3 && $t3 == 3;
		push @keep, $s;
	}
	print "$proved\n";
	STDOUT->flush;
	sleep $secs;
} elsif ($mode eq 'delay') {
	my ($lport, $h, $p, $from, $secs) = @ARGV;
	my $l = IO::Socket::INET->new(LocalAddr => $h, LocalPort => $lport, Listen => 1,
				      ReuseAddr => 1) or die "listen: $!\n";
	print "listening\n";
	STDOUT->flush;
	my $c = $l->accept or die "accept: $!\n";
	my $a = conn($h, $p, $from) or die "connect: $!\n";
	my $sel = IO::Select->new($c, $a);
	my @late; # [time due, bytes] from the client, in order
	OUTER: while (1) {
		my $wait = @late ? $late[0][0] - time : 30;
		$wait = 0 if $wait < 0;
		for my $r ($sel->can_read($wait)) {
			my $n = sysread($r, my $buf, 65536);
			last OUTER unless $n;
			if ($r == $c) { push @late, [time + $secs, $buf]; } else { syswrite($c, $buf); }
		}
		syswrite($a, (shift @late)->[1]) while @late && $late[0][0] <= time;
	}
} else {
	die "unknown mode $mode\n";
}
